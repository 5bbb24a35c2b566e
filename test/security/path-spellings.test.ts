import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMePath, routeRecorder, servedRoutes, WRITE_METHODS, type ServedRoute } from './route-table.js';
import { sendRaw, startListeningApp, type ListeningApp, type RawAnswer } from './outside.js';

/**
 * Every rule that depends on a path decides on the route the router matched, never on the raw
 * request target. Over a real socket, each route a maintenance level refuses (from the spec:
 * `degraded` refuses new checkouts and new game sessions; `lockdown` every write of /v1/public and
 * /v1/me but stopping a session) is sent in every spelling an attacker would try. A spelling
 * the router serves as that route is refused exactly as the route is; one it does not serve
 * reaches no handler (404/400). A rate limit counts every spelling of its route together.
 */

type Level = 'degraded' | 'lockdown';

const isClientPath = (path: string) => isMePath(path) || path === '/v1/public' || path.startsWith('/v1/public/');

/** The spec's refusals ("Maintenance mode"), written from its text, not from the gate's code. */
function refusedBySpec(level: Level, method: string, path: string): boolean {
  if (!WRITE_METHODS.includes(method) || !isClientPath(path)) return false;
  const route = `${method} ${path}`;
  if (level === 'degraded') return route === 'POST /v1/me/billing/checkout-session' || route === 'POST /v1/me/sessions';
  return route !== 'POST /v1/me/sessions/stop';
}

/** The spellings of one path. */
function spellings(path: string): Array<[name: string, target: string]> {
  const afterV1 = path.slice('/v1/'.length);
  const letter = afterV1.search(/[a-z]/);
  const escaped = (hex: string) => `/v1/${afterV1.slice(0, letter)}%${hex}${afterV1.slice(letter + 1)}`;
  const hex = afterV1.charCodeAt(letter).toString(16);
  const lastSlash = path.lastIndexOf('/');
  return [
    ['as declared', path],
    ['absolute-form', `http://x${path}`],
    ['absolute-form, other port', `http://platform.test:1${path}`],
    ['fragment', `${path}#frag`],
    ['query and fragment', `${path}?a=1#frag`],
    ['double slash', path.replace('/v1/', '/v1//')],
    ['leading double slash', `/${path}`],
    ['percent-encoded letter', escaped(hex)],
    ['upper-case escape of a letter', escaped(hex.toUpperCase())],
    ['trailing slash', `${path}/`],
    ['dot segment', path.replace('/v1/', '/v1/./')],
    ['dot-dot segment', path.replace('/v1/', '/v1/x/../')],
    ['encoded dot-dot segment', path.replace('/v1/', '/v1/x/%2e%2e/')],
    ['; parameter at the end', `${path};a=1`],
    ['; parameter in a segment', `${path.slice(0, lastSlash)};a=1${path.slice(lastSlash)}`],
  ];
}

const recorder = routeRecorder();
let t: ListeningApp;
let clientWrites: ServedRoute[];
const concrete = (path: string) => path.replace(/\{\w+\}/g, () => randomUUID());

async function setLevel(level: 'off' | Level): Promise<void> {
  await t.db
    .updateTable('ops_panic_state')
    .set({ level, reason: level === 'off' ? null : `test ${level}`, auto: false })
    .execute();
  await t.kernel.panic.refresh();
}

let sent = 0;
/** Sends one spelling and says which route (if any) the router matched for it. */
async function attempt(method: string, target: string): Promise<{ answer: RawAnswer; matched: string | null }> {
  const id = `spelling-${++sent}`;
  const answer = await sendRaw(t.port, method, target, { headers: { 'x-request-id': id }, body: '{}' });
  expect(answer.headers['x-request-id'], `${method} ${target}`).toBe(id);
  const matched = recorder.matched.get(id);
  if (matched === undefined) throw new Error(`${method} ${target}: no route hook ran`);
  return { answer, matched };
}

beforeAll(async () => {
  t = await startListeningApp({ extraRoutes: recorder.extraRoutes });
  clientWrites = servedRoutes(t).filter((route) => WRITE_METHODS.includes(route.method) && isClientPath(route.path));
});
afterAll(async () => {
  await setLevel('off');
  await t.close();
});

// First: the level tests below spend the address's waitlist budget.
describe('a rate limit', () => {
  it('counts every spelling of its route in one bucket', async () => {
    await setLevel('off');
    // POST /v1/public/waitlist: 5 per minute per address (the spec's table). `{}` is a 400 past the limit's count.
    const outcomes = [];
    for (const [name, target] of spellings('/v1/public/waitlist'))
      outcomes.push({ name, ...(await attempt('POST', target)) });
    const reached = outcomes.filter(({ matched }) => matched === 'POST /v1/public/waitlist');
    expect(reached.length).toBeGreaterThan(5);
    const letThrough = reached.filter(({ answer }) => answer.status !== 429);
    expect(letThrough.map(({ name }) => name)).toHaveLength(5);
    for (const { answer } of reached.slice(5)) expect(JSON.parse(answer.body)).toMatchObject({ error: 'rate_limited' });
  });
});

describe.each(['degraded', 'lockdown'] as const)('at %s, every spelling of every client write route', (level) => {
  it('is refused when the router serves it as a refused route, reaches no handler when it does not, and passes when it is an allowed route', async () => {
    await setLevel(level);
    const served = new Map<string, number>();
    const failures: string[] = [];
    for (const route of clientWrites) {
      const path = concrete(route.path);
      for (const [name, target] of spellings(path)) {
        const { answer, matched } = await attempt(route.method, target);
        const what = `${name}: ${route.method} ${target} → ${answer.status} ${answer.body.slice(0, 120)} (route ${matched})`;
        if (matched === null) {
          if (answer.status !== 404 && answer.status !== 400) failures.push(what);
          continue;
        }
        served.set(name, (served.get(name) ?? 0) + 1);
        const [matchedMethod, matchedPath] = matched.split(' ') as [string, string];
        const panicked = answer.status === 503 && JSON.parse(answer.body).error === 'panic_mode';
        if (panicked !== refusedBySpec(level, matchedMethod, matchedPath)) failures.push(what);
        if (panicked) expect(JSON.parse(answer.body)).toEqual({ error: 'panic_mode', level, reason: `test ${level}` });
      }
    }
    expect(failures).toEqual([]);
    // The router does serve these spellings as the route itself: the test is not vacuous.
    for (const name of [
      'as declared',
      'absolute-form',
      'absolute-form, other port',
      'fragment',
      'query and fragment',
      'percent-encoded letter',
      'trailing slash',
    ]) {
      expect(served.get(name), name).toBe(clientWrites.length);
    }
  });
});
