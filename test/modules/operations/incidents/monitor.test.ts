import { sql } from 'kysely';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';
import {
  changeRows,
  failingQuery,
  monitorAuditRows,
  panicRow,
  probe,
  resetIncidents,
  ruleRow,
  runtimeRule,
  seconds,
  seedGame,
  simulatorOf,
  useRules,
  type App,
} from './fixtures.js';
import { asRead, poolBudget } from '../../../../src/lib/split-pool.js';
import { TEST_POOL_SIZE } from '../../../helpers/database.js';
import { lockWaiterOn, sessionPid, waitFor } from '../../../helpers/waiting.js';

/**
 * The incident monitor on one instance, driven by `evaluate(now)` with chosen clocks: real
 * signals (the runtime simulator failing, real database errors and waits), real level changes.
 */

/** The latency rules' threshold (ms): a probe this slow counts as a slow database. */
const SLOW_MS = 40;
/** Holders enough to take every read session on PostgreSQL; on the embedded database, one holds and the rest queue. */
const READ_SESSIONS = poolBudget(TEST_POOL_SIZE)!.reads;

let t: App;
let staff: TestUser;
let player: TestUser;
let gameId: number;

beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (app, kernel) => {
      // A route whose query the database refuses as an overloaded server would.
      app.get('/test/database-failure', async () => failingQuery.execute(kernel.db));
    },
  });
  staff = await createUser(t.db, ['ops.panic', 'ops.read']);
  player = await createUser(t.db);
  gameId = (await seedGame(t)).id;
});
afterAll(async () => t.close());
beforeEach(async () => {
  simulatorOf(t).failNextRequests(0);
  await resetIncidents(t);
});

const startSession = (user: TestUser) =>
  t.request({ method: 'POST', url: '/v1/me/sessions', token: user.token, payload: { game_id: gameId } });
const stopSession = (user: TestUser) => t.request({ method: 'POST', url: '/v1/me/sessions/stop', token: user.token });
const setPanic = (level: string, reason: string) =>
  t.request({ method: 'POST', url: '/v1/admin/ops/panic', token: staff.token, payload: { level, reason } });

describe('the runtime failing', () => {
  it('sets degraded with auto: true, refuses new sessions with 503 panic_mode, then clears itself after the hold time', async () => {
    await useRules(t, staff, [runtimeRule({ hold_seconds: 60, cooldown_seconds: 60 })]);
    const T0 = new Date();
    simulatorOf(t).failNextRequests(1_000);
    const others = await Promise.all([createUser(t.db), createUser(t.db)]);
    const failed = await Promise.all(others.map(startSession));
    for (const response of failed)
      expect(response.json()).toEqual({ error: 'unavailable', details: { reason: 'runtime_unavailable' } });
    await probe(t);

    const tripped = await t.kernel.incidents.evaluate(T0);
    const reason = 'Incident rule runtime-test: runtime failure ratio 1.00 (3 of 3) over 30 s, at or above 0.5';
    const panic = { level: 'degraded', reason, set_by: 'incident-monitor', set_at: T0.toISOString(), auto: true };
    expect(tripped).toEqual({ evaluated: true, changed: panic });
    expect(t.kernel.panic.state).toEqual(panic);
    expect((await t.request({ method: 'GET', url: '/v1/admin/ops/panic', token: staff.token })).json()).toEqual(panic);

    const refused = await startSession(player);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json()).toEqual({ error: 'panic_mode', level: 'degraded', reason });
    // Everything else works: reads, and a player's own profile edit.
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: '/v1/me',
          token: player.token,
          payload: { display_name: 'Still here' },
        })
      ).statusCode,
    ).toBe(200);

    // Audited, alerted and recorded exactly as a manual change, with the rule and its measurement.
    const measurement = {
      signal: 'runtime',
      value: 1,
      threshold: 0.5,
      total: 3,
      failures: 3,
      window_seconds: 30,
      min_requests: 3,
    };
    expect(await monitorAuditRows(t)).toEqual([
      {
        action: 'ops.panic.set',
        actor_id: null,
        reason,
        summary: {
          before: { level: 'off', reason: null },
          after: { level: 'degraded', reason },
          auto: true,
          rule: 'runtime-test',
          measurement,
        },
      },
    ]);
    const payload = {
      level: 'degraded',
      previous_level: 'off',
      reason,
      set_by: 'incident-monitor',
      auto: true,
      rule: 'runtime-test',
      measurement,
    };
    await eventually(() =>
      expect(
        t.events
          .filter((e) => e.name === 'panic_mode_changed' || e.name === 'ops.panic_changed')
          .map((e) => [e.kind, e.name, e.payload, e.actorId]),
      ).toEqual([
        ['alert', 'panic_mode_changed', payload, null],
        ['dashboard', 'ops.panic_changed', payload, null],
      ]),
    );
    const [change] = await changeRows(t);
    expect(change).toMatchObject({
      level: 'degraded',
      previous_level: 'off',
      auto: true,
      reason,
      set_by: 'incident-monitor',
      rule_key: 'runtime-test',
      measurement,
    });
    expect(change!.signals).toMatchObject({
      runtime: { value: 1, total: 3, failures: 3 },
      database_errors: { value: 0, total: 1, failures: 0 },
    });
    expect(await ruleRow(t, 'runtime-test')).toMatchObject({ holding: true, breached_since: T0, last_change_at: T0 });

    // The runtime recovers: healthy from T0+31 s (the failures left the window), clear once 60 s healthy.
    simulatorOf(t).failNextRequests(0);
    for (const at of [31, 61]) {
      await probe(t, 3);
      expect(await t.kernel.incidents.evaluate(seconds(T0, at))).toEqual({ evaluated: true, changed: null });
    }
    expect(await ruleRow(t, 'runtime-test')).toMatchObject({
      healthy_since: seconds(T0, 31),
      breached_since: null,
      last_value: 0,
      last_total: 3,
    });
    await probe(t, 3);
    const cleared = await t.kernel.incidents.evaluate(seconds(T0, 91));
    const clearReason =
      'Incident rule runtime-test cleared: runtime failure ratio 0.00 (0 of 3) over 30 s, healthy for at least 60 s';
    expect(cleared.changed).toEqual({
      level: 'off',
      reason: clearReason,
      set_by: 'incident-monitor',
      set_at: seconds(T0, 91).toISOString(),
      auto: true,
    });
    expect(t.kernel.panic.state.level).toBe('off');
    expect((await changeRows(t)).map((row) => [row.level, row.previous_level, row.auto, row.rule_key])).toEqual([
      ['degraded', 'off', true, 'runtime-test'],
      ['off', 'degraded', true, 'runtime-test'],
    ]);
    expect((await monitorAuditRows(t)).length).toBe(2);

    const started = await startSession(player);
    expect(started.statusCode, started.body).toBe(201);
    expect((await stopSession(player)).statusCode).toBe(204);
  });

  it('does not trip below the minimum number of calls, nor below the threshold', async () => {
    await useRules(t, staff, [runtimeRule({ min_requests: 4 })]);
    const T0 = new Date();
    simulatorOf(t).failNextRequests(3);
    await probe(t, 3);
    expect(await t.kernel.incidents.evaluate(T0)).toEqual({ evaluated: true, changed: null });
    await probe(t, 4); // now 3 failures out of 7 in the window: below one half
    expect(await t.kernel.incidents.evaluate(seconds(T0, 5))).toEqual({ evaluated: true, changed: null });
    expect(await ruleRow(t, 'runtime-test')).toMatchObject({ last_total: 7, breached_since: null });
    expect(await panicRow(t)).toMatchObject({ level: 'off', auto: false });
  });
});

describe('the database failing', () => {
  it('errors from the database set lockdown; once it answers again for the hold time, the level clears', async () => {
    await useRules(t, staff, [
      {
        key: 'db-test',
        signal: 'database_errors',
        threshold: 0.5,
        window_seconds: 30,
        min_requests: 3,
        level: 'lockdown',
        auto_clear: true,
        hold_seconds: 30,
        cooldown_seconds: 30,
      },
    ]);
    const T0 = new Date();
    for (let i = 0; i < 4; i += 1)
      expect((await t.request({ method: 'GET', url: '/test/database-failure' })).statusCode).toBe(503);
    await probe(t);
    const tripped = await t.kernel.incidents.evaluate(T0);
    expect(tripped.changed).toMatchObject({
      level: 'lockdown',
      auto: true,
      set_by: 'incident-monitor',
      reason: 'Incident rule db-test: database_errors failure ratio 0.80 (4 of 5) over 30 s, at or above 0.5',
    });
    const refused = await t.request({
      method: 'PATCH',
      url: '/v1/me',
      token: player.token,
      payload: { display_name: 'Locked out' },
    });
    expect(refused.json()).toMatchObject({ error: 'panic_mode', level: 'lockdown' });
    // Staff routes stay open.
    expect(
      (await t.request({ method: 'GET', url: '/v1/admin/ops/incidents', token: staff.token })).json().data[0],
    ).toMatchObject({ level: 'lockdown', rule_key: 'db-test' });

    await probe(t, 3);
    expect((await t.kernel.incidents.evaluate(seconds(T0, 31))).changed).toBeNull();
    await probe(t, 3);
    expect((await t.kernel.incidents.evaluate(seconds(T0, 61))).changed).toMatchObject({ level: 'off', auto: true });
    expect(
      (await t.request({ method: 'PATCH', url: '/v1/me', token: player.token, payload: { display_name: 'Back' } }))
        .statusCode,
    ).toBe(200);
  });

  it("a wait for a free session (this instance's own load) is not read as the database being slow", async () => {
    await useRules(t, staff, [
      {
        key: 'db-slow',
        signal: 'database_latency',
        threshold: SLOW_MS,
        window_seconds: 30,
        min_requests: 1,
        level: 'degraded',
        auto_clear: true,
        hold_seconds: 30,
        cooldown_seconds: 30,
      },
    ]);
    const T0 = new Date();
    // Every read session (one on the embedded database) taken by a read (a raw query not declared
    // one would take a write session) and held until the probe has waited for one.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = 0;
    const holders = Array.from({ length: READ_SESSIONS }, () =>
      t.db.connection().execute(async (session) => {
        await asRead(sql`SELECT 1`).execute(session);
        holding += 1;
        await released;
      }),
    );
    await waitFor(() => holding > 0, 'a read session held');
    const probeBegan = performance.now();
    let probed = false;
    const probing = probe(t).then(() => {
      probed = true;
    });
    // Latency is time, and nothing but the clock shows this wait: the probe waits for a session
    // past the rule's threshold, which it would reach if the wait were counted.
    await waitFor(() => performance.now() - probeBegan > SLOW_MS, `the probe to wait ${SLOW_MS} ms for a session`, {
      intervalMs: 1,
    });
    expect(probed).toBe(false);
    release();
    await Promise.all([probing, ...holders]);
    expect((await t.kernel.incidents.evaluate(seconds(T0, 1))).changed).toBeNull();
    expect((await ruleRow(t, 'db-slow')).last_value).toBeLessThan(SLOW_MS);
  });

  // On the embedded database a held lock holds its one connection: the probe waits for the
  // connection, which the test above shows is not counted.
  it.runIf(process.env.TEST_DATABASE_URL)(
    'a slow database (probes waiting on a held lock) trips the latency rule',
    async () => {
      await useRules(t, staff, [
        {
          key: 'db-slow',
          signal: 'database_latency',
          threshold: SLOW_MS,
          window_seconds: 30,
          min_requests: 1,
          level: 'degraded',
          auto_clear: true,
          hold_seconds: 30,
          cooldown_seconds: 30,
        },
      ]);
      const T0 = new Date();
      await probe(t);
      expect((await t.kernel.incidents.evaluate(T0)).changed).toBeNull();
      let probing: Promise<void> | undefined;
      await t.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE ops_panic_state IN ACCESS EXCLUSIVE MODE`.execute(trx);
        probing = probe(t);
        // The probe's latency is the case under test: the lock is held until the probe has waited
        // long enough for the mean of the two probes to reach the threshold.
        await lockWaiterOn(t.db, await sessionPid(trx), 'the probe to wait on the lock', 2 * SLOW_MS);
      });
      await probing;
      const tripped = await t.kernel.incidents.evaluate(seconds(T0, 1));
      expect(tripped.changed).toMatchObject({ level: 'degraded', auto: true });
      expect(tripped.changed!.reason).toMatch(
        /^Incident rule db-slow: database_latency mean \d+ ms over 30 s \(2 probes\), at or above 40 ms$/,
      );
      expect((await ruleRow(t, 'db-slow')).last_value).toBeGreaterThanOrEqual(SLOW_MS);
    },
  );
});

describe('a level a person set', () => {
  it('is never overridden: neither a failing runtime nor a failing database moves a manual level', async () => {
    await useRules(t, staff, [
      runtimeRule({ min_requests: 1 }),
      {
        key: 'db-test',
        signal: 'database_errors',
        threshold: 0.5,
        window_seconds: 30,
        min_requests: 1,
        level: 'lockdown',
        auto_clear: true,
        hold_seconds: 0,
        cooldown_seconds: 0,
      },
    ]);
    expect((await setPanic('degraded', 'Planned maintenance')).statusCode).toBe(200);
    const T0 = new Date();
    simulatorOf(t).failNextRequests(1_000);
    await probe(t, 3);
    for (let i = 0; i < 4; i += 1) await t.request({ method: 'GET', url: '/test/database-failure' });
    for (const at of [0, 10, 20])
      expect(await t.kernel.incidents.evaluate(seconds(T0, at))).toEqual({ evaluated: true, changed: null });
    expect(await panicRow(t)).toEqual({
      level: 'degraded',
      reason: 'Planned maintenance',
      set_by: staff.id,
      auto: false,
    });
    // Both rules are breached (the database one at a higher level), and still nothing moved.
    expect(await ruleRow(t, 'runtime-test')).toMatchObject({
      holding: false,
      last_change_at: null,
      breached_since: T0,
    });
    expect(await ruleRow(t, 'db-test')).toMatchObject({
      holding: false,
      last_change_at: null,
      breached_since: T0,
      last_value: 4 / 7,
    });
  });

  it('a manual off during an automatic incident silences the rule for its cool-down, then it may trip again', async () => {
    await useRules(t, staff, [runtimeRule({ min_requests: 1, window_seconds: 10, cooldown_seconds: 60 })]);
    simulatorOf(t).failNextRequests(1_000);
    const T0 = new Date(Date.now() - 5_000);
    await probe(t);
    expect((await t.kernel.incidents.evaluate(T0)).changed).toMatchObject({ level: 'degraded', auto: true });

    const off = await setPanic('off', 'Runtime team is on it');
    expect(off.json().panic).toMatchObject({ level: 'off', auto: false, set_by: staff.id });
    const now = new Date();
    const rule = await ruleRow(t, 'runtime-test');
    expect(rule.holding).toBe(false);
    expect(Math.abs(rule.silenced_until!.getTime() - (now.getTime() + 60_000))).toBeLessThan(2_000);
    const [audit] = await t.db
      .selectFrom('audit_log')
      .select('summary')
      .where('action', '=', 'ops.panic.set')
      .where('actor_id', '=', staff.id)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    expect(audit!.summary).toMatchObject({ silenced_rules: ['runtime-test'] });

    // Still failing, but silenced: no change within the cool-down.
    for (const at of [5, 30, 55]) {
      await probe(t);
      expect((await t.kernel.incidents.evaluate(seconds(now, at))).changed).toBeNull();
    }
    await probe(t);
    expect((await t.kernel.incidents.evaluate(seconds(now, 62))).changed).toMatchObject({
      level: 'degraded',
      auto: true,
    });
  });
});

describe('hysteresis', () => {
  it('an on/off signal never flaps: at most one automatic change per rule per cool-down', async () => {
    await useRules(t, staff, [
      runtimeRule({ window_seconds: 10, min_requests: 1, hold_seconds: 0, cooldown_seconds: 60 }),
    ]);
    const T0 = new Date();
    const changedAt: number[] = [];
    for (let s = 0; s <= 300; s += 10) {
      const failing = (s / 10) % 2 === 0;
      simulatorOf(t).failNextRequests(failing ? 1 : 0);
      await probe(t);
      if ((await t.kernel.incidents.evaluate(seconds(T0, s))).changed !== null) changedAt.push(s);
    }
    // Trip at 0; the first healthy tick past the cool-down clears (70); the first failing one past the next trips (140)…
    expect(changedAt).toEqual([0, 70, 140, 210, 280]);
    expect((await changeRows(t)).map((row) => row.level)).toEqual(['degraded', 'off', 'degraded', 'off', 'degraded']);
  });

  it('a rule that may not clear itself leaves the level to a person', async () => {
    await useRules(t, staff, [
      runtimeRule({ min_requests: 1, auto_clear: false, hold_seconds: 0, cooldown_seconds: 0 }),
    ]);
    const T0 = new Date();
    simulatorOf(t).failNextRequests(1);
    await probe(t);
    expect((await t.kernel.incidents.evaluate(T0)).changed).toMatchObject({ level: 'degraded' });
    for (const at of [40, 400]) {
      await probe(t);
      expect((await t.kernel.incidents.evaluate(seconds(T0, at))).changed).toBeNull();
    }
    expect(await panicRow(t)).toMatchObject({ level: 'degraded', auto: true });
  });

  it('a breached rule of a higher level takes over an automatic degraded', async () => {
    await useRules(t, staff, [
      runtimeRule({ min_requests: 1 }),
      {
        key: 'db-test',
        signal: 'database_errors',
        threshold: 0.5,
        window_seconds: 30,
        min_requests: 1,
        level: 'lockdown',
        auto_clear: true,
        hold_seconds: 0,
        cooldown_seconds: 0,
      },
    ]);
    const T0 = new Date();
    simulatorOf(t).failNextRequests(1);
    await probe(t);
    expect((await t.kernel.incidents.evaluate(T0)).changed).toMatchObject({ level: 'degraded' });
    await t.request({ method: 'GET', url: '/test/database-failure' });
    await t.request({ method: 'GET', url: '/test/database-failure' });
    const escalated = await t.kernel.incidents.evaluate(seconds(T0, 5));
    expect(escalated.changed).toMatchObject({ level: 'lockdown', auto: true });
    expect(escalated.changed!.reason).toMatch(/^Incident rule db-test:/);
    expect((await ruleRow(t, 'db-test')).holding).toBe(true);
    expect((await ruleRow(t, 'runtime-test')).holding).toBe(false);
  });
});
