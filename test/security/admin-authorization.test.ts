import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permText } from '../../src/kernel/permissions.js';
import { PERMISSIONS } from '../../src/modules/index.js';
import { SECTION_WRITE_PERMISSION, SETTINGS_WRITE_PERMISSIONS } from '../../src/modules/site/settings/sections.js';
import { createUser, startTestApp, type TestUser } from '../helpers/app.js';
import { signToken } from '../helpers/tokens.js';
import {
  documentedOperations,
  isAdminPath,
  isMePath,
  minimalRequest,
  routeRecorder,
  sampleBody,
  servedRoutes,
  SWITCH_METHODS,
  urlOf,
  type Operation,
  type ServedRoute,
} from './route-table.js';

/**
 * Every /v1/admin and /v1/me route, read from Fastify's route tree; each admin route's permission
 * keys read from its own `config.perms` (a hook sees them as a request reaches the route), never
 * from a list kept here. For each admin route: no token → 401 `missing_token`; a signed-in user
 * holding none of its keys (nothing at all, or every other key) → 403 `forbidden` naming exactly
 * its keys; a holder of any one key (or its `<resource>.*`, or `*`) → past the guard (a minimal
 * request: 400/404/422 are fine, 5xx is not). Methods a path does not serve, path spellings and
 * method-override headers reach no route.
 */

const recorder = routeRecorder();
let t: Awaited<ReturnType<typeof startTestApp>>;
let operations: Map<string, Operation>;
let admin: ServedRoute[];
let me: ServedRoute[];
let player: TestUser;
let owner: TestUser;
/** A user holding exactly one grant (a key, `<resource>.*`), made once per grant. */
const holders = new Map<string, TestUser>();

async function holder(grants: string[]): Promise<TestUser> {
  const key = [...grants].sort().join(',');
  let user = holders.get(key);
  if (user === undefined) {
    user = await createUser(t.db, grants);
    holders.set(key, user);
  }
  return user;
}

const permsOf = (route: ServedRoute): readonly string[] => {
  const perms = recorder.configs.get(route.route)?.perms;
  if (perms === undefined) throw new Error(`${route.route}: no request reached it, or it declares no perms`);
  return perms;
};

const requestOf = (route: ServedRoute) => minimalRequest(route, operations.get(route.route));

const describeAnswer = (route: ServedRoute, response: LightMyRequestResponse) =>
  `${route.route} → ${response.statusCode} ${response.body.slice(0, 200)}`;

beforeAll(async () => {
  t = await startTestApp({ extraRoutes: recorder.extraRoutes });
  operations = await documentedOperations(t);
  const served = servedRoutes(t);
  admin = served.filter((route) => isAdminPath(route.path));
  me = served.filter((route) => isMePath(route.path));
  player = await createUser(t.db);
  owner = await createUser(t.db, ['*']);
  // A request without a token reaches every route: the recorder reads each one's config.
  for (const route of [...admin, ...me]) await t.request(requestOf(route));
});
afterAll(async () => {
  await t?.close();
});

describe('the guarded surface, from the app itself', () => {
  it('every served admin route declares catalog permission keys, and its OpenAPI description names the same', () => {
    expect(admin.length).toBeGreaterThan(150);
    expect(me.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const route of admin) {
      const perms = permsOf(route);
      if (perms.length === 0 || perms.some((key) => !(PERMISSIONS.keys as readonly string[]).includes(key)))
        wrong.push(`${route.route}: ${perms.join(',')}`);
      const operation = operations.get(route.route);
      if (operation === undefined) continue;
      const documented = /\*\*Permission:\*\* (.*?)(?: \(any one\))?\.(?:\n|$)/.exec(operation.description)?.[1];
      const expected = perms.map((key) => `\`${key}\``).join(' or ');
      if (documented !== expected) wrong.push(`${route.route}: documents ${documented}, declares ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every served admin and /v1/me route is in the OpenAPI document', () => {
    const undocumented = [...admin, ...me].filter((route) => !operations.has(route.route)).map((route) => route.route);
    expect(undocumented).toEqual([]);
  });
});

describe('without a valid token', () => {
  it('every /v1/admin and /v1/me route (HEAD too) answers 401 `missing_token` to no bearer', async () => {
    const wrong: string[] = [];
    const guarded = servedRoutes(t, { head: true }).filter((route) => isAdminPath(route.path) || isMePath(route.path));
    for (const route of guarded) {
      for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Token ${owner.token}`]) {
        const response = await t.request({
          ...requestOf(route),
          headers: authorization === undefined ? {} : { authorization },
        });
        const ok =
          response.statusCode === 401 && (route.method === 'HEAD' || response.json().error === 'missing_token');
        if (!ok) wrong.push(`${authorization ?? 'none'}: ${describeAnswer(route, response)}`);
      }
    }
    expect(guarded.length).toBeGreaterThan(admin.length + me.length);
    expect(wrong).toEqual([]);
  });

  it('every /v1/admin and /v1/me route answers 401 `invalid_token` to a forged, expired or subject-less token', async () => {
    const forged = await signToken({ sub: owner.id, secret: 'another-secret-that-is-long-enough-for-hs256-xyz' });
    const expired = await signToken({ sub: owner.id, expiresIn: -3600 });
    const noSubject = await signToken({ sub: null });
    const wrong: string[] = [];
    for (const route of [...admin, ...me]) {
      for (const token of [forged, expired, noSubject, 'not.a.jwt']) {
        const response = await t.request({ ...requestOf(route), token });
        if (response.statusCode !== 401 || response.json().error !== 'invalid_token')
          wrong.push(describeAnswer(route, response));
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("signed in without the route's permission", () => {
  it('every admin route answers a player (no grants) 403 `forbidden` with `details.perm` naming exactly its keys', async () => {
    const wrong: string[] = [];
    for (const route of admin) {
      const response = await t.request({ ...requestOf(route), token: player.token });
      const expected = { error: 'forbidden', details: { perm: permText(permsOf(route)) } };
      if (response.statusCode !== 403 || JSON.stringify(response.json()) !== JSON.stringify(expected))
        wrong.push(describeAnswer(route, response));
    }
    expect(wrong).toEqual([]);
  });

  it('every admin route answers a holder of every other key 403 naming exactly its keys', async () => {
    const wrong: string[] = [];
    for (const route of admin) {
      const perms = permsOf(route);
      const others = PERMISSIONS.keys.filter((key) => !perms.includes(key));
      const response = await t.request({ ...requestOf(route), token: (await holder(others)).token });
      const expected = { error: 'forbidden', details: { perm: permText(perms) } };
      if (response.statusCode !== 403 || JSON.stringify(response.json()) !== JSON.stringify(expected))
        wrong.push(describeAnswer(route, response));
    }
    expect(wrong).toEqual([]);
  });
});

describe("signed in with one of the route's permissions", () => {
  /** Past the guard: anything but 401/403, and no 5xx (the request is minimal, so 400/404/422 are expected). */
  const pastTheGuard = (response: LightMyRequestResponse) =>
    ![401, 403].includes(response.statusCode) && response.statusCode < 500;

  it('every admin route lets a holder of each one of its keys past the guard (never 5xx)', async () => {
    const wrong: string[] = [];
    let calls = 0;
    for (const route of admin) {
      for (const key of permsOf(route)) {
        const response = await t.request({ ...requestOf(route), token: (await holder([key])).token });
        calls += 1;
        if (!pastTheGuard(response)) wrong.push(`${key}: ${describeAnswer(route, response)}`);
      }
    }
    expect(calls).toBeGreaterThanOrEqual(admin.length);
    expect(wrong).toEqual([]);
  });

  it('every admin route lets `<resource>.*` of its first key, and `*`, past the guard', async () => {
    const wrong: string[] = [];
    for (const route of admin) {
      const wildcard = `${permsOf(route)[0]!.split('.')[0]}.*`;
      for (const user of [await holder([wildcard]), owner]) {
        const response = await t.request({ ...requestOf(route), token: user.token });
        if (!pastTheGuard(response))
          wrong.push(`${user === owner ? '*' : wildcard}: ${describeAnswer(route, response)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("site settings: a write key of another section is refused 403 naming the section's own key", async () => {
    const writes = admin.filter(
      (route) => route.path.startsWith('/v1/admin/site/settings/{section}') && route.method !== 'GET',
    );
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const route of writes) {
      for (const [section, needed] of Object.entries(SECTION_WRITE_PERMISSION)) {
        for (const key of SETTINGS_WRITE_PERMISSIONS) {
          const response = await t.request({
            method: route.method as InjectOptions['method'],
            url: route.path.replace('{section}', section),
            payload: sampleBody(operations.get(route.route)?.body),
            token: (await holder([key])).token,
          });
          if (key === needed) expect(pastTheGuard(response), describeAnswer(route, response)).toBe(true);
          else
            expect({ status: response.statusCode, body: response.json() }, `${key} on ${section}`).toEqual({
              status: 403,
              body: { error: 'forbidden', details: { perm: needed } },
            });
        }
      }
    }
  });
});

describe('methods and spellings a route does not serve', () => {
  it('a method a guarded path does not serve reaches none of its routes (404 `not_found`), even for `*`', async () => {
    const served = new Set([...admin, ...me].map((route) => route.route));
    const paths = [...new Set([...admin, ...me].map((route) => route.path))];
    const wrong: string[] = [];
    let switches = 0;
    for (const path of paths) {
      const operation = [...served].map((route) => operations.get(route)).find((candidate) => candidate?.path === path);
      for (const method of SWITCH_METHODS) {
        if (served.has(`${method} ${path}`)) continue;
        switches += 1;
        const response = await t.request({
          method: method as InjectOptions['method'],
          url: urlOf(path, operation),
          token: owner.token,
          ...(method === 'GET' || method === 'OPTIONS' ? {} : { payload: {} }),
        });
        // Another parametric route of the same method may match (`DELETE /v1/me/sessions/stop` is a session id); no other method's may.
        const reached = recorder.routeOf(response);
        const sameMethod = reached === null || (reached?.startsWith(`${method} `) && reached !== `${method} ${path}`);
        if (response.statusCode < 400 || response.statusCode >= 500 || !sameMethod)
          wrong.push(`${method} ${path} → ${response.statusCode} (reached ${reached}) ${response.body.slice(0, 120)}`);
      }
    }
    expect(switches).toBeGreaterThan(paths.length * 3);
    expect(wrong).toEqual([]);
  });

  it('method-override headers are ignored: the request reaches the route of its own method', async () => {
    const both = admin.filter(
      (route) =>
        route.method === 'GET' && admin.some((other) => other.path === route.path && other.method === 'DELETE'),
    );
    expect(both.length).toBeGreaterThan(3);
    for (const route of both) {
      for (const header of ['x-http-method-override', 'x-http-method', 'x-method-override']) {
        const response = await t.request({ ...requestOf(route), token: owner.token, headers: { [header]: 'DELETE' } });
        expect(recorder.routeOf(response), `${route.route} with ${header}`).toBe(route.route);
      }
    }
  });

  it('other spellings of an admin path (case, encoding, dot segments, doubled slashes) never answer without a token', async () => {
    const spellings = (url: string) => [
      url.toUpperCase(),
      url.replace('/v1/admin', '/V1/Admin'),
      url.replace('/v1/admin', '/v1/%61dmin'),
      url.replace('/v1/admin', '/v1/admin%2f..%2fadmin'),
      url.replace('/v1/admin/', '/v1/admin//'),
      url.replace('/v1/admin/', '//v1/admin/'),
      url.replace('/v1/admin/', '/v1/public/../admin/'),
      url.replace('/v1/admin/', '/v1/admin/./'),
      `${url}/`,
      `${url};.css`,
      `${url}%00`,
    ];
    const wrong: string[] = [];
    for (const route of admin) {
      for (const url of spellings(requestOf(route).url as string)) {
        const response = await t.request({ ...requestOf(route), url });
        const reached = recorder.routeOf(response);
        const ok =
          response.statusCode >= 400 &&
          response.statusCode < 500 &&
          (reached === null ||
            (reached !== undefined && isAdminPath(reached.split(' ')[1]!) && response.statusCode === 401));
        if (!ok) wrong.push(`${route.method} ${url} → ${response.statusCode} (reached ${reached})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
