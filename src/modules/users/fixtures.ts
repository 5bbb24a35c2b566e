import type { Insertable, Kysely } from 'kysely';
import type { Tables, UsersTable } from '../../db/tables.js';

/** A user row as sign-in would leave it, with what a test or the demo seed needs set up front. */
export type UserFixture = Pick<Insertable<UsersTable>, 'id' | 'email'> &
  Partial<
    Pick<
      Insertable<UsersTable>,
      'status' | 'display_name' | 'provider' | 'locale' | 'timezone' | 'created_at' | 'last_seen_at' | 'metadata'
    >
  >;

/**
 * The one writer of user rows besides sign-in (a signed-in request's first sighting makes the
 * row; no service makes a user for someone else). Tests (test/helpers/app.ts `createUser`) and
 * the demo seed make their people here, so the users area stays the only writer of its table.
 * A row whose id exists is left as it is; answers the ids written.
 */
export async function writeUserFixtures(db: Kysely<Tables>, users: UserFixture[]): Promise<string[]> {
  if (users.length === 0) return [];
  const rows = await db
    .insertInto('users')
    .values(users)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
