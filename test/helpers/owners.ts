import { createUser, type TestApp, type TestUser } from './app.js';

/** Shared by test/modules/users/last-owner.test.ts and test/reliability/last-owner-races.test.ts. */

export const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

/** The one answer to a change that would leave no active owner. */
export const LAST_OWNER = {
  error: 'invalid_request',
  details: { reason: 'no active owner would remain: grant the owner role, without an expiry, to someone else first' },
};

/** Gives the user the owner role without an expiry, as BOOTSTRAP_OWNER does. */
export async function makeOwner(db: TestApp['db'], userId: string): Promise<void> {
  await db
    .insertInto('user_roles')
    .values({ user_id: userId, role_id: OWNER_ROLE_ID, granted_by: null, reason: 'test', expires_at: null })
    .execute();
}

/**
 * Exactly `count` new active owners (permanent grants) and no other: earlier owners lose the
 * role, which the database allows because the new ones remain.
 */
export async function ownersExactly(db: TestApp['db'], count: number): Promise<TestUser[]> {
  const owners: TestUser[] = [];
  for (let i = 0; i < count; i++) {
    const owner = await createUser(db);
    await makeOwner(db, owner.id);
    owners.push(owner);
  }
  await db
    .deleteFrom('user_roles')
    .where('role_id', '=', OWNER_ROLE_ID)
    .where(
      'user_id',
      'not in',
      owners.map((o) => o.id),
    )
    .execute();
  return owners;
}

/** The active owners now (migration 0044's view), sorted. */
export async function activeOwners(db: TestApp['db']): Promise<string[]> {
  const rows = await db.selectFrom('active_owners').select('user_id').orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}
