import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedAccounts } from '../../../src/modules/account-deletion/purge.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { confirm, DAY, mailedCode, start, stateOf } from '../../helpers/account-deletion.js';
import type { Database } from '../../../src/db/database.js';

/**
 * The purge against what staff do to the same accounts at the same time. It picks its candidates
 * from the deletion requests, locks their user rows, then locks and checks their requests again,
 * skipping any row another transaction holds. PostgreSQL only: the embedded database runs one
 * transaction at a time, so nothing can happen between the purge's statements there.
 */

let t: Awaited<ReturnType<typeof startTestApp>>;
let staff: TestUser;
let other: Database;

/** A player who deleted their own account (confirmed): due for the purge 30 days on. */
async function selfDeleted(): Promise<TestUser> {
  const player = await createUser(t.db);
  expect((await start(t, player)).statusCode).toBe(202);
  const confirmed = await confirm(t, player, await mailedCode(t, player.id));
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return player;
}

/** Past every grace period these tests start. */
const DUE = () => new Date(Date.now() + 31 * DAY);

const silent = { warn() {} };

/**
 * One run of the purge at `now`; `between` runs after its first statement (the pick of candidates)
 * and before the next (the locks), while the purge's transaction is open.
 */
async function purge(now: Date, between?: () => Promise<void>) {
  let picked = false;
  const afterPick: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    async transformResult({ result }) {
      if (!picked) {
        picked = true;
        await between?.();
      }
      return result;
    },
  };
  return t.db
    .transaction()
    .execute((trx) =>
      purgeDeletedAccounts(
        trx.withPlugin(afterPick),
        { identity: t.kernel.identity, events: t.kernel.events, log: silent },
        { now, services: undefined },
      ),
    );
}

const restore = (player: TestUser) =>
  t.request({
    method: 'POST',
    url: `/v1/admin/users/${player.id}/restore`,
    token: staff.token,
    payload: { reason: 'changed their mind' },
  });
const softDelete = (player: TestUser) =>
  t.request({
    method: 'DELETE',
    url: `/v1/admin/users/${player.id}`,
    token: staff.token,
    payload: { reason: 'abuse report' },
  });

/** Holds a row lock on another connection (as a staff action would) while `during` runs; fails if it takes 10 s. */
async function holding<T>(lock: (db: Database['db']) => Promise<unknown>, during: () => Promise<T>): Promise<T> {
  return other.db.transaction().execute(async (trx) => {
    await lock(trx);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the purge waited on a row another transaction holds')), 10_000);
    });
    try {
      return await Promise.race([during(), waited]);
    } finally {
      clearTimeout(timer);
    }
  });
}

describe.runIf(process.env.TEST_DATABASE_URL)('the purge and staff actions at the same time', () => {
  beforeAll(async () => {
    t = await startTestApp();
    staff = await createUser(t.db, ['users.delete']);
    other = await t.testDatabase!.openAnother();
  });
  afterAll(async () => {
    await t.close();
  });

  it('an account staff restores between the pick and the lock stays active', async () => {
    const player = await selfDeleted();
    const summary = await purge(DUE(), async () => {
      expect((await restore(player)).statusCode).toBe(204);
    });
    expect(summary).toEqual({ purged: 0, failed: 0 });
    expect(await stateOf(t, player.id)).toMatchObject({ user: { status: 'active' }, request: undefined });
  });

  it('an account restored and soft-deleted again by staff between the pick and the lock keeps its grace period', async () => {
    const player = await selfDeleted();
    const summary = await purge(DUE(), async () => {
      expect((await restore(player)).statusCode).toBe(204);
      expect((await softDelete(player)).statusCode).toBe(204);
    });
    // Soft-deleted again, by staff: its request is gone, so the user row alone no longer makes it due.
    expect(summary).toEqual({ purged: 0, failed: 0 });
    expect(await stateOf(t, player.id)).toMatchObject({
      user: { status: 'deleted', status_reason: 'abuse report' },
      request: undefined,
    });
  });

  it('a user row a staff action holds is skipped, never waited on, and purged by the next run', async () => {
    const [held, free] = [await selfDeleted(), await selfDeleted()];
    const summary = await holding(
      (db) => db.selectFrom('users').select('id').where('id', '=', held.id).forUpdate().execute(),
      () => purge(DUE()),
    );
    expect(summary).toEqual({ purged: 1, failed: 0 });
    expect((await stateOf(t, free.id)).user).toBeUndefined();
    expect((await stateOf(t, held.id)).user).toMatchObject({ status: 'deleted' });

    expect(await purge(DUE())).toEqual({ purged: 1, failed: 0 });
    expect((await stateOf(t, held.id)).user).toBeUndefined();
  });

  it('a deletion request another transaction holds is skipped, never waited on, and purged by the next run', async () => {
    const player = await selfDeleted();
    const summary = await holding(
      (db) =>
        db
          .selectFrom('account_deletion_requests')
          .select('user_id')
          .where('user_id', '=', player.id)
          .forUpdate()
          .execute(),
      () => purge(DUE()),
    );
    expect(summary).toEqual({ purged: 0, failed: 0 });
    expect((await stateOf(t, player.id)).user).toMatchObject({ status: 'deleted' });

    expect(await purge(DUE())).toEqual({ purged: 1, failed: 0 });
    expect((await stateOf(t, player.id)).user).toBeUndefined();
  });
});
