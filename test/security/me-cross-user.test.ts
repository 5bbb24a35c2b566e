import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/kernel/pagination.js';
import { createUser, startTestApp, type TestUser } from '../helpers/app.js';
import { IMAGE_BYTES } from '../helpers/images.js';
import { signToken } from '../helpers/tokens.js';
import { putBytes, requestUpload } from '../helpers/uploads.js';
import { uploadAttachment } from '../modules/support/fixtures.js';
import { decide, pollDeviceCode, requestCodes } from '../modules/device-authorization/fixtures.js';
import { seedGame, startSession, stopMine } from '../modules/game-sessions/fixtures.js';
import {
  documentedMeRoutes,
  namesAnObject,
  rowsOfUser,
  servedMeRoutes,
  type MeRoute,
} from './me-cross-user-fixtures.js';

/**
 * Every /v1/me route acts on the caller only. The routes are read from the app (its OpenAPI
 * document, checked against Fastify's route tree); every path parameter and every id-like query,
 * header or body field of each must be in SCENARIOS (filled with an object of user B) or in
 * NOT_OWNED (with why it names nobody's data), so a new route or field fails here until it is.
 * Then user A calls each with B's id and with a well-formed id of nobody: the documented answer,
 * byte for byte the same for both, nothing of B's in it, no stored row of A or B changed, B's own
 * view unchanged; and B, making the same call, succeeds.
 */

let t: Awaited<ReturnType<typeof startTestApp>>;
let storageDir: string;
let routes: MeRoute[];
let ada: TestUser;
let bob: TestUser;

const BOB_TITLE = 'For Bob only';
const BOB_SUBJECT = 'Bob: a private matter';
const BOB_GRANT = 'Bob: credits for the outage';

/** B's objects, one of each kind a /v1/me route takes an id of (and A's where A's own lists need one). */
const bobs = {
  loginSession: '',
  device: '',
  notification: '',
  ticket: '',
  avatarKey: '',
  attachmentKeys: [] as string[],
  gameSessions: [] as string[],
  gameCursor: '',
  deletionCode: '',
};
let adasGameSession = '';

interface IdFill {
  bobs: () => string;
  /** Well-formed, and names nothing anybody has. */
  nobodys: () => string;
}

interface Scenario {
  /** The field (as the route names it) and what fills it. */
  ids: Record<string, IdFill>;
  /** The rest of a valid request. */
  body?: Record<string, unknown>;
  /** A's answer, alike for B's id and nobody's; `documented` is the route description's wording of it. */
  answer: { status: number; body?: unknown; documented?: string };
  /** Further checks on A's answer (a list: only A's own rows). */
  check?: (body: any) => void;
  /** B's answer to the same request: the fixture is right, the refusal is not an accident. */
  owner: { status: number; check?: (body: any) => void };
}

const uuid: () => string = randomUUID;
const notFound = { status: 404, body: { error: 'not_found' }, documented: '404 `not_found`' };

const nobodysAttachment = () => `support/${randomUUID()}/${randomBytes(16).toString('hex')}.png`;

/** Keyed by route; a second scenario of one route adds ` #<what>` to it. */
const SCENARIOS: Record<string, Scenario> = {
  'DELETE /v1/me/sessions/{sessionId}': {
    ids: { sessionId: { bobs: () => bobs.loginSession, nobodys: uuid } },
    answer: notFound,
    owner: { status: 204 },
  },
  'DELETE /v1/me/device-authorizations/{id}': {
    ids: { id: { bobs: () => bobs.device, nobodys: uuid } },
    answer: notFound,
    owner: { status: 204 },
  },
  'POST /v1/me/notifications/{id}/read': {
    ids: { id: { bobs: () => bobs.notification, nobodys: uuid } },
    answer: notFound,
    owner: { status: 204 },
  },
  'GET /v1/me/support/{id}': {
    ids: { id: { bobs: () => bobs.ticket, nobodys: uuid } },
    answer: notFound,
    owner: { status: 200, check: (body) => expect(body).toMatchObject({ id: bobs.ticket, subject: BOB_SUBJECT }) },
  },
  // B's ticket and B's upload at once (A's calls to support are limited to 5 an hour): 404 for the ticket first.
  'POST /v1/me/support/{id}/messages': {
    ids: {
      id: { bobs: () => bobs.ticket, nobodys: uuid },
      attachment_keys: { bobs: () => bobs.attachmentKeys[0]!, nobodys: nobodysAttachment },
    },
    body: { message: 'Any news?' },
    answer: notFound,
    owner: {
      status: 200,
      check: (body) =>
        expect(body.messages.at(-1)).toMatchObject({ message: 'Any news?', attachment_keys: [bobs.attachmentKeys[0]] }),
    },
  },
  'POST /v1/me/support #attachment': {
    ids: { attachment_keys: { bobs: () => bobs.attachmentKeys[1]!, nobodys: nobodysAttachment } },
    body: { subject: 'Look at this', message: 'Attached.', category: 'other' },
    answer: {
      status: 422,
      body: { error: 'invalid_request', details: { reason: 'unknown_attachment', index: 0 } },
      documented: '`unknown_attachment` (not an upload of the caller, whoever it belongs to)',
    },
    owner: {
      status: 201,
      check: (body) =>
        expect(body.messages[0].attachments.map((a: { key: string }) => a.key)).toEqual([bobs.attachmentKeys[1]]),
    },
  },
  'POST /v1/me/avatar/confirm': {
    ids: {
      key: {
        bobs: () => bobs.avatarKey,
        nobodys: () => `avatars/${randomUUID()}/${randomBytes(16).toString('hex')}.png`,
      },
    },
    answer: notFound,
    owner: { status: 200, check: (body) => expect(body.avatar_url).toContain(encodeURIComponent(bobs.avatarKey)) },
  },
  'GET /v1/me/game-sessions': {
    // The keyset cursor names a session: B's newest one, or a uuid of none at the same instant.
    ids: {
      cursor: {
        bobs: () => bobs.gameCursor,
        nobodys: () => encodeCursor({ created_at: decodeCursor(bobs.gameCursor)!.created_at, id: randomUUID() }),
      },
    },
    answer: { status: 200 },
    check: (body) => expect(body.data.map((session: { id: string }) => session.id)).toEqual([adasGameSession]),
    owner: {
      status: 200,
      check: (body) => expect(body.data.map((session: { id: string }) => session.id)).toEqual([bobs.gameSessions[0]]),
    },
  },
  // Last: B's own confirmation deletes B.
  'POST /v1/me/delete/confirm': {
    ids: {
      code: {
        bobs: () => bobs.deletionCode,
        nobodys: () => String((Number(bobs.deletionCode) + 1) % 1e8).padStart(8, '0'),
      },
    },
    answer: {
      status: 422,
      body: {
        error: 'invalid_state',
        details: { reason: 'no deletion request is pending; start one with POST /v1/me/delete' },
      },
      documented: '422 `invalid_state` when no request is pending',
    },
    owner: { status: 200 },
  },
};

/**
 * Id-like fields that name no user's data, and why. `documented`: words the route's or the
 * field's description must still say for the reason to hold (when they change, look again).
 */
const NOT_OWNED: Record<string, Record<string, { reason: string; documented?: string }>> = {
  'POST /v1/me/sessions': { game_id: { reason: 'a store game: the public catalog' } },
  'POST /v1/me/billing/checkout-session': {
    productId: { reason: 'a catalog product' },
    priceId: { reason: "a catalog product's provider price" },
    promotionCode: { reason: 'a code staff publish for any player to type (there are no per-user codes)' },
    'idempotency-key': {
      reason:
        "a key in the sender's own key space: unique per player, so B's key sent by A is a new key of A's, answered with A's own checkout (billing/checkout/idempotency.test.ts: \"a key is one player's\")",
      documented: 'a key belongs to the player who sent it',
    },
  },
  'POST /v1/me/device/approve': {
    user_code: {
      reason:
        "the code a launcher shows: the device's short-lived secret, no account's until approved (another player's decided code: device-authorization/approve.test.ts)",
    },
  },
};

/** Answers that differ on every call by design (a fresh ticket): compared for leaks, not for equality. */
const VOLATILE_ROUTES = ['GET /v1/me/realtime'];

const routeKeyOf = (key: string) => key.split(' #')[0]!;
const routeOf = (key: string) => {
  const route = routes.find((candidate) => candidate.route === routeKeyOf(key));
  if (route === undefined) throw new Error(`${key} is not served`);
  return route;
};

/** The request a scenario makes: each id placed where the route's schema takes it. */
function requestFor(route: MeRoute, scenario: Scenario, whose: keyof IdFill): InjectOptions {
  let url = route.path;
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const payload: Record<string, unknown> = structuredClone(scenario.body ?? {});
  for (const [name, fill] of Object.entries(scenario.ids)) {
    const field = route.fields.find((candidate) => candidate.name === name);
    if (field === undefined) throw new Error(`${route.route} takes no ${name}`);
    const value = fill[whose]();
    expect(value, `${route.route} ${name}`).not.toBe('');
    if (field.in === 'path') url = url.replace(`{${name}}`, encodeURIComponent(value));
    else if (field.in === 'query') query[name] = value;
    else if (field.in === 'header') headers[name] = value;
    else {
      const path = name.split('.');
      let target = payload;
      for (const step of path.slice(0, -1)) {
        target[step] ??= {};
        target = target[step] as Record<string, unknown>;
      }
      // A list of ids (attachment keys) gets the one id as its only item.
      target[path[path.length - 1]!] = field.schema.type === 'array' ? [value] : value;
    }
  }
  expect(url, `${route.route}: a path parameter left unfilled`).not.toContain('{');
  return {
    method: route.method as InjectOptions['method'],
    url,
    query,
    headers,
    ...(route.hasBody ? { payload } : {}),
  };
}

/** Strings only B's data holds: none may show in an answer to A. */
const bobsMarkers = () => [
  bob.id,
  bob.email,
  BOB_TITLE,
  BOB_SUBJECT,
  BOB_GRANT,
  bobs.loginSession,
  bobs.device,
  bobs.notification,
  bobs.ticket,
  bobs.avatarKey,
  ...bobs.attachmentKeys,
  ...bobs.gameSessions,
];

/** A request as A: whatever it answers, nothing of B's is in it. */
async function asAda(options: InjectOptions): Promise<LightMyRequestResponse> {
  const response = await t.request({ ...options, token: ada.token });
  for (const marker of bobsMarkers())
    expect(response.body, `${options.method} ${options.url} shows ${marker}`).not.toContain(marker);
  return response;
}

const answerOf = (response: LightMyRequestResponse) => ({
  status: response.statusCode,
  type: response.headers['content-type'],
  body: response.body,
});

/** Signed download URLs move their expiry hourly: the key they name is what counts. */
const withoutSignatures = (text: string) => text.replace(/([?&](?:expires|sig)=)[^&"]*/g, '$1…');

/** What B sees of their own data: every parameterless GET under /v1/me (the volatile one aside), and their ticket. */
async function bobsView(): Promise<Record<string, unknown>> {
  const urls = routes
    .filter(
      (route) =>
        route.method === 'GET' &&
        route.fields.every((field) => field.in !== 'path') &&
        !VOLATILE_ROUTES.includes(route.route),
    )
    .map((route) => route.path);
  const view: Record<string, unknown> = {};
  for (const url of [...urls, `/v1/me/support/${bobs.ticket}`]) {
    const response = await t.request({ method: 'GET', url, token: bob.token });
    view[url] = { status: response.statusCode, body: withoutSignatures(response.body) };
  }
  return view;
}

async function expectStatus(response: Promise<LightMyRequestResponse>, status: number): Promise<any> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer.body === '' ? null : answer.json();
}

/** Each kind of object, for B (and the ones A's own lists need for A), through the real routes. */
async function createObjects(staff: TestUser): Promise<void> {
  for (const user of [ada, bob])
    await expectStatus(t.request({ method: 'GET', url: '/v1/me', token: user.token }), 200);

  // A second login session of B: the one A tries to revoke.
  bobs.loginSession = randomUUID();
  const bobsOtherToken = await signToken({ sub: bob.id, email: bob.email, claims: { session_id: bobs.loginSession } });
  await expectStatus(t.request({ method: 'GET', url: '/v1/me', token: bobsOtherToken }), 200);

  // A launcher B approved and signed in.
  const codes = await requestCodes(t);
  await expectStatus(decide(t, bob, codes.user_code, 'approve'), 200);
  await expectStatus(pollDeviceCode(t, codes), 200);
  bobs.device = (
    await expectStatus(t.request({ method: 'GET', url: '/v1/me/device-authorizations', token: bob.token }), 200)
  ).data[0].id;

  // An in-app notification to B alone (and one to A).
  for (const [user, title] of [
    [bob, BOB_TITLE],
    [ada, 'For Ada only'],
  ] as const) {
    await expectStatus(
      t.request({
        method: 'POST',
        url: '/v1/admin/notifications/broadcast',
        token: staff.token,
        payload: { segment: { q: user.id }, notification: { title } },
      }),
      200,
    );
  }
  const bobsNotifications = await expectStatus(
    t.request({ method: 'GET', url: '/v1/me/notifications', token: bob.token }),
    200,
  );
  bobs.notification = bobsNotifications.data.find(
    (notification: { title: string }) => notification.title === BOB_TITLE,
  ).id;

  // A support ticket each.
  bobs.ticket = (
    await expectStatus(
      t.request({
        method: 'POST',
        url: '/v1/me/support',
        token: bob.token,
        payload: { subject: BOB_SUBJECT, message: 'Please call me.', category: 'account' },
      }),
      201,
    )
  ).id;
  await expectStatus(
    t.request({
      method: 'POST',
      url: '/v1/me/support',
      token: ada.token,
      payload: { subject: 'Ada asks', message: 'Hello.', category: 'other' },
    }),
    201,
  );

  // An avatar B uploaded and has not confirmed yet.
  const grant = await requestUpload(t, bob, 'image/png', IMAGE_BYTES['image/png'].length);
  await expectStatus(putBytes(t, grant.upload_url, IMAGE_BYTES['image/png'], grant.headers), 204);
  bobs.avatarKey = grant.key;

  // Two files B uploaded for support and has not attached yet.
  for (let i = 0; i < 2; i += 1)
    bobs.attachmentKeys.push(await uploadAttachment(t, bob, 'image/png', IMAGE_BYTES['image/png']));

  // Game sessions, oldest first: A's, then two of B's; B's first page of one ends at B's newest.
  const game = await seedGame(t);
  adasGameSession = (await expectStatus(startSession(t, ada, game.id), 201)).session_id;
  for (let i = 0; i < 2; i += 1) {
    bobs.gameSessions.push((await expectStatus(startSession(t, bob, game.id), 201)).session_id);
    await expectStatus(stopMine(t, bob), 204);
  }
  const bobsFirstPage = await expectStatus(
    t.request({ method: 'GET', url: '/v1/me/game-sessions', query: { limit: '1' }, token: bob.token }),
    200,
  );
  expect(bobsFirstPage.data.map((session: { id: string }) => session.id)).toEqual([bobs.gameSessions[1]]);
  bobs.gameCursor = bobsFirstPage.meta.next_cursor;

  // Credits each, so both ledgers have entries.
  for (const [user, reason] of [
    [bob, BOB_GRANT],
    [ada, 'Ada: welcome credits'],
  ] as const) {
    await expectStatus(
      t.request({
        method: 'POST',
        url: '/v1/admin/billing/credits/grant',
        token: staff.token,
        payload: { user_id: user.id, amount: 100, reason },
      }),
      201,
    );
  }

  // B's pending account deletion, and its mailed code.
  await expectStatus(t.request({ method: 'POST', url: '/v1/me/delete', token: bob.token, payload: {} }), 202);
  const mail = await t.db
    .selectFrom('email_messages')
    .select('text')
    .where('user_id', '=', bob.id)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  bobs.deletionCode = /confirmation code: (\d{8})/.exec(mail.text ?? '')?.[1] ?? '';
}

beforeAll(async () => {
  storageDir = mkdtempSync(join(tmpdir(), 'pa-me-cross-user-'));
  t = await startTestApp({ config: { storageDir } });
  routes = await documentedMeRoutes(t);
  ada = await createUser(t.db);
  bob = await createUser(t.db);
  await createObjects(await createUser(t.db, ['announcements.write', 'billing.write']));
});
afterAll(async () => {
  await t?.close();
  rmSync(storageDir, { recursive: true, force: true });
});

describe('the /v1/me surface, from the app itself', () => {
  it('every /v1/me route Fastify serves is in the OpenAPI document (so its parameters are seen)', () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(servedMeRoutes(t).sort()).toEqual(routes.map((route) => route.route).sort());
  });

  it("every path parameter and id-like field of every /v1/me route is filled with B's object or named as nobody's data", () => {
    const found = routes.flatMap((route) =>
      route.fields.filter(namesAnObject).map((field) => `${route.route} ${field.name}`),
    );
    const known = [
      ...Object.entries(SCENARIOS).flatMap(([key, scenario]) =>
        Object.keys(scenario.ids).map((name) => `${routeKeyOf(key)} ${name}`),
      ),
      ...Object.entries(NOT_OWNED).flatMap(([route, fields]) => Object.keys(fields).map((name) => `${route} ${name}`)),
    ];
    expect(found.sort()).toEqual([...new Set(known)].sort());
  });

  it("each reason a field names nobody's data still holds where the description states it", () => {
    for (const [key, fields] of Object.entries(NOT_OWNED)) {
      const route = routeOf(key);
      for (const [name, { documented }] of Object.entries(fields)) {
        if (documented === undefined) continue;
        const field = route.fields.find((candidate) => candidate.name === name)!;
        expect(`${route.description}\n${field.schema.description ?? ''}`, `${key} ${name}`).toContain(documented);
      }
    }
  });
});

describe("ids of B's data smuggled into A's reads are ignored", () => {
  it('every parameterless GET under /v1/me answers A the same with ?user_id=<B> and kin, showing nothing of B', async () => {
    const reads = routes.filter(
      (route) => route.method === 'GET' && route.fields.every((field) => field.in !== 'path'),
    );
    expect(reads.length).toBeGreaterThan(5);
    for (const route of reads) {
      const plain = await asAda({ method: 'GET', url: route.path });
      const smuggled = await asAda({
        method: 'GET',
        url: route.path,
        query: { user_id: bob.id, userId: bob.id, owner_id: bob.id, sub: bob.id },
      });
      expect(smuggled.statusCode, route.route).toBe(plain.statusCode);
      if (!VOLATILE_ROUTES.includes(route.route))
        expect(withoutSignatures(smuggled.body), route.route).toBe(withoutSignatures(plain.body));
    }
  });
});

describe("A with B's ids", () => {
  it.each(Object.keys(SCENARIOS))(
    '%s: answered as for an id of nobody; nothing of B shown or changed; B succeeds',
    async (key) => {
      const scenario = SCENARIOS[key]!;
      const route = routeOf(key);
      if (scenario.answer.documented) expect(route.description).toContain(scenario.answer.documented);
      const bobsIds = Object.values(scenario.ids).map((fill) => fill.bobs());
      const stored = async () => ({ bob: await rowsOfUser(t, bob.id, bobsIds), ada: await rowsOfUser(t, ada.id, []) });

      const viewBefore = await bobsView();
      const storedBefore = await stored();
      const withBobs = await asAda(requestFor(route, scenario, 'bobs'));
      const withNobodys = await asAda(requestFor(route, scenario, 'nobodys'));

      expect(withBobs.statusCode, withBobs.body).toBe(scenario.answer.status);
      if (scenario.answer.body !== undefined) expect(withBobs.json()).toEqual(scenario.answer.body);
      expect(answerOf(withBobs), "an existence oracle: B's id is answered otherwise than nobody's").toEqual(
        answerOf(withNobodys),
      );
      scenario.check?.(withBobs.json());
      expect(await stored()).toEqual(storedBefore);
      expect(await bobsView()).toEqual(viewBefore);

      const own = await t.request({ ...requestFor(route, scenario, 'bobs'), token: bob.token });
      expect(own.statusCode, own.body).toBe(scenario.owner.status);
      scenario.owner.check?.(own.json());
    },
  );
});
