import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import {
  changeRows,
  monitorAuditRows,
  probe,
  resetIncidents,
  runtimeRule,
  seconds,
  seedGame,
  simulatorOf,
  useRules,
  type App,
} from './fixtures.js';

/**
 * Two instances of the service on one database, each with its own runtime simulator: signals
 * are summed across both, and a trip is acted on by exactly one of them.
 */

let a: App;
let b: App;
let staff: TestUser;
let player: TestUser;
let gameId: number;

beforeAll(async () => {
  a = await startTestApp();
  b = (await startTestApp({ database: await a.testDatabase!.openAnother() })) as App;
  staff = await createUser(a.db, ['ops.panic']);
  player = await createUser(a.db);
  gameId = (await seedGame(a)).id;
});
afterAll(async () => {
  await b.close();
  await a.close();
});
beforeEach(async () => {
  simulatorOf(a).failNextRequests(0);
  await resetIncidents(a, b);
});

const alerts = (t: TestApp) => t.events.filter((event) => event.name === 'panic_mode_changed');

it('signals are summed across instances, and evaluating on both at once makes one change, not two', async () => {
  // No cool-down: only the panic row's lock keeps the second evaluation from acting again.
  await useRules(a, staff, [runtimeRule({ min_requests: 6, cooldown_seconds: 0, hold_seconds: 600 })]);
  const T0 = new Date();
  // A's runtime fails, B's answers: 3 of 6 across both, one half, the threshold.
  simulatorOf(a).failNextRequests(3);
  await Promise.all([probe(a, 3), probe(b, 3)]);
  expect((await a.kernel.incidents.evaluate(seconds(T0, -1))).changed).toBeNull(); // A alone: 3 calls, under the minimum
  // Both flushed, then both evaluate at once: whichever takes the panic row acts, the other skips
  // the round or finds the level already set. (Counts flushed after a round are read by the next.)
  await b.kernel.incidents.flush(seconds(T0, -1));
  const results = await Promise.all([
    a.kernel.incidents.evaluate(T0),
    b.kernel.incidents.evaluate(T0),
    a.kernel.incidents.evaluate(T0),
    b.kernel.incidents.evaluate(T0),
  ]);
  expect(results.filter((result) => result.changed !== null)).toHaveLength(1);
  expect(results.find((result) => result.changed !== null)!.changed).toMatchObject({
    level: 'degraded',
    auto: true,
    reason: expect.stringContaining('(3 of 6)'),
  });

  // Later evaluations on either instance change nothing more.
  for (const t of [a, b, a]) expect((await t.kernel.incidents.evaluate(seconds(T0, 1))).changed).toBeNull();
  expect((await changeRows(a)).map((row) => [row.level, row.auto, row.rule_key])).toEqual([
    ['degraded', true, 'runtime-test'],
  ]);
  expect(await monitorAuditRows(a)).toHaveLength(1);
  // Each instance delivers the one alert to its subscribers once.
  await eventually(() => {
    expect(alerts(a)).toHaveLength(1);
    expect(alerts(b)).toHaveLength(1);
  });

  // Both enforce it: the instance that did not act hears of it through the change bus.
  await eventually(() => expect(b.kernel.panic.state).toMatchObject({ level: 'degraded', auto: true }));
  for (const t of [a, b]) {
    const refused = await t.request({
      method: 'POST',
      url: '/v1/me/sessions',
      token: player.token,
      payload: { game_id: gameId },
    });
    expect(refused.json()).toMatchObject({ error: 'panic_mode', level: 'degraded' });
  }
});
