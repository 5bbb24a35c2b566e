import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf } from '../../helpers/expectations.js';
import { confirm, mailedCode, start } from '../../helpers/account-deletion.js';
import { activeOwners, LAST_OWNER, makeOwner, OWNER_ROLE_ID, ownersExactly } from '../../helpers/owners.js';
import { accessState, storedState } from '../../helpers/stored-state.js';

/**
 * The last-active-owner rule (migration 0044) on every path that can take owner rights away:
 * bulk revoke (of every owner, of the only one), an expiry put on an owner grant, ban, soft and
 * hard delete, the player's own deletion (its code request and its confirmation), and edits of
 * the owner role. Each is refused with the one documented answer and changes nothing (no row,
 * no audit entry, no event, no mail); operation 14, which the spec answers per user, keeps the
 * last owner named and fails that user alone. The database itself refuses any statement that would do it.
 * Races between two requests are in test/reliability/last-owner-races.test.ts.
 */

const DAY_MS = 86_400_000;
const PROTECTED = { error: 'invalid_request', details: { reason: 'role owner is protected and cannot be changed' } };

let t: TestApp;
/** Holds every permission through a role of its own (`*`), so it may act on owners; not an owner itself. */
let superuser: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  superuser = await createUser(t.db, ['*']);
});
afterAll(async () => {
  await t?.close();
});

/** Everything a removal of owner rights could touch. */
const ownershipState = async () => ({
  ...(await accessState(t.db)),
  ...(await storedState(t.db, { account_deletion_requests: ['user_id'] }, [
    'audit_log',
    'event_outbox',
    'email_messages',
  ])),
});

/** The last-owner refusal: nothing changes, no audit entry names the request, the owners stay. */
async function expectRefused(send: () => Promise<LightMyRequestResponse>, body: unknown = LAST_OWNER) {
  const owners = await activeOwners(t.db);
  const response = await expectRefusedUnchanged(ownershipState, send, 422, body);
  expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
  expect(await activeOwners(t.db)).toEqual(owners);
  expect(owners.length).toBeGreaterThan(0);
}

const asSuperuser = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.request({ method, url, token: superuser.token, ...(payload === undefined ? {} : { payload }) });
const bulk = (body: object) => asSuperuser('POST', '/v1/admin/users/bulk/roles', body);
const idsOf = (users: TestUser[]) => users.map((user) => user.id);
const inADay = () => new Date(Date.now() + DAY_MS).toISOString();

describe('every path that takes owner rights away is refused while it would leave no active owner', () => {
  type Send = (owners: TestUser[], player: TestUser) => Promise<LightMyRequestResponse>;
  const paths: Array<{ name: string; owners: number; send: Send }> = [
    {
      name: 'a ban',
      owners: 1,
      send: (o) => asSuperuser('POST', `/v1/admin/users/${o[0]!.id}/ban`, { reason: 'take over' }),
    },
    {
      name: 'a soft delete',
      owners: 1,
      send: (o) => asSuperuser('DELETE', `/v1/admin/users/${o[0]!.id}`, { reason: 'take over' }),
    },
    {
      name: 'a hard delete',
      owners: 1,
      send: (o) => asSuperuser('DELETE', `/v1/admin/users/${o[0]!.id}`, { reason: 'take over', hard: true }),
    },
    { name: 'the owner asking to delete their own account', owners: 1, send: (o) => start(t, o[0]!) },
  ];

  it.each(paths)('$name: 422, nothing changes', async ({ owners, send }) => {
    const made = await ownersExactly(t.db, owners);
    const player = await createUser(t.db);
    await expectRefused(() => send(made, player));
  });

  // Operation 14 answers per user (the spec: always 200): the owner who must stay fails alone with
  // the guard's SQLSTATE, keeps the role untouched, and the others' changes go through.
  const KEPT = (id: string) => ({ user_id: id, ok: false, error: '23514' });
  it.each([
    {
      name: 'a bulk revoke of every owner: the last named keeps the role',
      owners: 2,
      send: (o: TestUser[]) => bulk({ user_ids: idsOf(o), role_key: 'owner', action: 'revoke' }),
      results: (o: TestUser[]) => [{ user_id: o[0]!.id, ok: true }, KEPT(o[1]!.id)],
      audited: (o: TestUser[]) => [o[0]!.id],
    },
    {
      name: 'a revoke of the only owner',
      owners: 1,
      send: (o: TestUser[]) => bulk({ user_ids: idsOf(o), role_key: 'owner', action: 'revoke', reason: 'x' }),
      results: (o: TestUser[]) => [KEPT(o[0]!.id)],
      audited: () => [],
    },
    {
      name: 'a revoke naming a player, then the only owner',
      owners: 1,
      send: (o: TestUser[], player: TestUser) =>
        bulk({ user_ids: [player.id, o[0]!.id], role_key: 'owner', action: 'revoke' }),
      results: (o: TestUser[], player: TestUser) => [{ user_id: player.id, ok: true }, KEPT(o[0]!.id)],
      audited: () => [],
    },
    {
      name: "an expiry put on the only owner's grant",
      owners: 1,
      send: (o: TestUser[]) => bulk({ user_ids: idsOf(o), role_key: 'owner', action: 'grant', expires_at: inADay() }),
      results: (o: TestUser[]) => [KEPT(o[0]!.id)],
      audited: () => [],
    },
    {
      name: "expiries put on every owner's grant: the last named keeps a permanent one",
      owners: 2,
      send: (o: TestUser[]) => bulk({ user_ids: idsOf(o), role_key: 'owner', action: 'grant', expires_at: inADay() }),
      results: (o: TestUser[]) => [{ user_id: o[0]!.id, ok: true }, KEPT(o[1]!.id)],
      audited: (o: TestUser[]) => [o[0]!.id],
    },
  ])('operation 14, $name: 200, per user', async ({ owners, send, results, audited }) => {
    const made = await ownersExactly(t.db, owners);
    const player = await createUser(t.db);
    const keptGrant = await t.db.selectFrom('user_roles').selectAll().where('user_id', '=', made.at(-1)!.id).execute();
    const response = await send(made, player);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 200,
      body: { results: results(made, player) },
    });
    expect(await activeOwners(t.db)).toEqual([made.at(-1)!.id]);
    expect(await t.db.selectFrom('user_roles').selectAll().where('user_id', '=', made.at(-1)!.id).execute()).toEqual(
      keptGrant,
    );
    expect((await auditOf(t.db, requestIdOf(response))).map((row) => row.target_id)).toEqual(audited(made));
  });

  it('the owner confirming their own deletion started beside another owner: 422, nothing changes', async () => {
    const [leaving, other] = await ownersExactly(t.db, 2);
    expect((await start(t, leaving!)).statusCode).toBe(202);
    const code = await mailedCode(t, leaving!.id);
    // The other owner leaves meanwhile (allowed: `leaving` is still there).
    await t.db.deleteFrom('user_roles').where('user_id', '=', other!.id).where('role_id', '=', OWNER_ROLE_ID).execute();
    await expectRefused(() => confirm(t, leaving!, code));
    // The code still works once someone else owns too.
    await makeOwner(t.db, (await createUser(t.db)).id);
    expect((await confirm(t, leaving!, code)).statusCode).toBe(200);
  });

  it.each([
    {
      name: 'emptying its permissions',
      send: () => asSuperuser('PUT', `/v1/admin/roles/${OWNER_ROLE_ID}/permissions`, { keys: [] }),
    },
    { name: 'deleting it', send: () => asSuperuser('DELETE', `/v1/admin/roles/${OWNER_ROLE_ID}`) },
  ])('the owner role: $name is refused (the role is protected); nothing changes', async ({ send }) => {
    await ownersExactly(t.db, 1);
    await expectRefused(send, PROTECTED);
  });

  it('an expiring owner grant does not count: banning the only permanent owner is refused', async () => {
    const [owner] = await ownersExactly(t.db, 1);
    const expiring = await createUser(t.db);
    const expiresAt = new Date(Date.now() + DAY_MS);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: expiring.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: 'test', expires_at: expiresAt })
      .execute();
    await expectRefused(() => asSuperuser('POST', `/v1/admin/users/${owner!.id}/ban`, { reason: 'take over' }));
  });

  it('with another owner a revoke goes through, and the last one left is refused', async () => {
    const [first, second] = await ownersExactly(t.db, 2);
    const revoked = await bulk({ user_ids: [first!.id], role_key: 'owner', action: 'revoke', reason: 'rotation' });
    expect(revoked.json()).toEqual({ results: [{ user_id: first!.id, ok: true }] });
    expect(await activeOwners(t.db)).toEqual([second!.id]);
    const audited = (await auditOf(t.db, requestIdOf(revoked))).map((row) => [row.action, row.target_id]);
    expect(audited).toEqual([['users.role_revoke', first!.id]]);
    const kept = await bulk({ user_ids: [second!.id], role_key: 'owner', action: 'revoke' });
    expect(kept.json()).toEqual({ results: [{ user_id: second!.id, ok: false, error: '23514' }] });
    expect(await activeOwners(t.db)).toEqual([second!.id]);
  });
});

describe('the database refuses any statement that leaves no active owner, whoever sends it', () => {
  it.each([
    { name: 'deleting the owner grant', statement: (id: string) => sql`DELETE FROM user_roles WHERE user_id = ${id}` },
    {
      name: 'putting an expiry on it',
      statement: (id: string) => sql`UPDATE user_roles SET expires_at = now() + interval '1 day' WHERE user_id = ${id}`,
    },
    { name: 'banning the owner', statement: (id: string) => sql`UPDATE users SET status = 'banned' WHERE id = ${id}` },
    { name: 'deleting the owner', statement: (id: string) => sql`DELETE FROM users WHERE id = ${id}` },
    {
      name: 'taking `*` from the owner role',
      statement: () => sql`DELETE FROM role_permissions WHERE role_id = ${OWNER_ROLE_ID}::uuid`,
    },
    { name: 'deleting the owner role', statement: () => sql`DELETE FROM roles WHERE id = ${OWNER_ROLE_ID}::uuid` },
  ])('$name: a check violation named last_active_owner at commit; nothing changes', async ({ statement }) => {
    const [owner] = await ownersExactly(t.db, 1);
    const before = await ownershipState();
    const error = await t.db
      .transaction()
      .execute(async (trx) => {
        await statement(owner!.id).execute(trx);
      })
      .then(
        () => undefined,
        (refusal: unknown) => refusal,
      );
    expect(error).toMatchObject({ code: '23514', constraint: 'last_active_owner' });
    expect(await ownershipState()).toEqual(before);
  });

  it('a transaction may hand the role over in any order: revoke first, grant after', async () => {
    const [owner] = await ownersExactly(t.db, 1);
    const heir = await createUser(t.db);
    await t.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_roles').where('user_id', '=', owner!.id).execute();
      await makeOwner(trx, heir.id);
    });
    expect(await activeOwners(t.db)).toEqual([heir.id]);
  });
});
