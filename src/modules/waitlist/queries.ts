import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { likePattern, readPage } from '../../kernel/pagination.js';
import type { ListWaitlistQuery, WaitlistSignupView } from './schemas.js';
import './tables.js';

type Db = Kysely<Tables>;

export interface NewSignup {
  email: string;
  source: string | null;
  referrer: string | null;
  ip: string | null;
}

/** Adds the address unless it is there: one statement either way, the first signup's fields stay. */
export async function insertSignup(db: Db, signup: NewSignup): Promise<void> {
  await db
    .insertInto('waitlist_signups')
    .values(signup)
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
}

export async function listSignups(
  db: Db,
  query: ListWaitlistQuery,
): Promise<{ rows: WaitlistSignupView[]; total: number }> {
  let filtered = db.selectFrom('waitlist_signups');
  if (query.q !== undefined) filtered = filtered.where('email', 'ilike', likePattern(query.q));
  if (query.source !== undefined) filtered = filtered.where('source', '=', query.source);
  return readPage(filtered, query, (matching) =>
    matching
      .select(['email', 'source', 'referrer', 'ip', 'created_at'])
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('email'),
  );
}
