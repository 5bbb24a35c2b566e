import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { JobContext, JobSummary } from '../../kernel/areas/jobs.js';
import { deleteSessionsUnseenSince } from './queries.js';

/**
 * Sessions unseen for 90 days are forgotten: identity providers end idle sessions well before
 * that, and a session that does come back is recorded again from its next request. Revocations
 * (`revoked_sessions`) are kept: they refuse a token whenever it turns up.
 */
export const LOGIN_SESSION_RETENTION_MS = 90 * 86_400_000;

export async function pruneLoginSessionsJob(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  return { deleted: await deleteSessionsUnseenSince(trx, new Date(now.getTime() - LOGIN_SESSION_RETENTION_MS)) };
}
