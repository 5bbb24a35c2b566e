import { sql, type Kysely } from 'kysely';
import { asRead } from '../lib/split-pool.js';
import type { Tables } from './tables.js';

/**
 * Behind a transaction pooler no client sets anything on the server's sessions: the pooler
 * refuses startup parameters, and a `SET` stays on whichever server connection ran it (handed to
 * other clients next). So the sessions take these from the database role (`ALTER ROLE … SET`),
 * the database, or the pooler's `connect_query` (decision 0102). Checked once at start: every
 * server session of one role and database gets the same, so one answers for all of them.
 */
export async function pooledSessionProblems(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await asRead(
    sql<{ role: string; statement_timeout: string; own_commit_notices: string | null }>`SELECT current_user AS role,
      current_setting('statement_timeout') AS statement_timeout,
      current_setting('platform_api.own_commit_notices', true) AS own_commit_notices`,
  ).execute(db);
  const { role, statement_timeout, own_commit_notices } = rows[0]!;
  const problems: string[] = [];
  // Without it a statement whose request gave up (the client's answer budget) runs on, holding a server connection.
  if (statement_timeout === '0')
    problems.push(`no statement_timeout on the server sessions: ALTER ROLE ${role} SET statement_timeout = '30s'`);
  // Without it the writing instance hears its own user changes only from its listener, a moment after the write.
  if (own_commit_notices !== 'on')
    problems.push(
      `platform_api.own_commit_notices is not on: ALTER ROLE ${role} SET platform_api.own_commit_notices = on (as a superuser)`,
    );
  return problems;
}
