import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { TemplateParts } from '../render.js';
import type { EmailCategory } from '../tables.js';
import '../tables.js';

/** The dispatcher's SQL: each statement runs in a short transaction of its own, never across a send. */

type Db = Kysely<Tables>;

/** A message the dispatcher holds, identified by (id, attempts): a later claim of the same row has more attempts. */
export interface ClaimedMessage {
  id: string;
  attempts: number;
  to_email: string;
  category: EmailCategory;
  template_id: string | null;
  template_version: number | null;
  vars: unknown;
  subject: string | null;
  html: string | null;
  text: string | null;
  campaign_id: string | null;
  broadcast_id: string | null;
  next_attempt_at: Date;
}

/** A message that reached a status, as settle listeners see it. */
export interface SettledMessage {
  id: string;
  campaign_id: string | null;
  broadcast_id: string | null;
  status: 'sent' | 'failed' | 'skipped' | 'queued';
  last_error: string | null;
}

export const INTERRUPTED = 'interrupted';
export const SUPPRESSED = 'suppressed';

/**
 * Messages whose sender died mid-send (the lease ran out) are failed, never sent again: the
 * transport may have taken them, and a second copy is worse than a missing one.
 */
export async function failExpiredLeases(trx: Db, now: Date): Promise<SettledMessage[]> {
  return trx
    .updateTable('email_messages')
    .set({ status: 'failed', last_error: INTERRUPTED, lease_until: null })
    .where('status', '=', 'sending')
    .where('lease_until', '<', now)
    .returning(['id', 'campaign_id', 'broadcast_id', 'last_error', sql<'failed'>`'failed'`.as('status')])
    .execute();
}

export interface ClaimResult {
  claimed: ClaimedMessage[];
  skipped: SettledMessage[];
}

/**
 * Takes up to `limit` due messages: rows another instance is claiming right now are skipped
 * (SKIP LOCKED), so each message is claimed once. Marketing mail to a suppressed address is
 * settled as skipped here; the rest become 'sending' with a lease and one more attempt.
 */
export async function claimDueMessages(trx: Db, now: Date, limit: number, leaseUntil: Date): Promise<ClaimResult> {
  const rows = await sql<ClaimedMessage & { status: 'sending' | 'skipped'; last_error: string | null }>`
    WITH due AS (
      SELECT m.id,
             m.category = 'marketing' AND EXISTS (SELECT 1 FROM email_suppressions s WHERE s.email =
               lower(m.to_email)) AS suppressed
      FROM email_messages m
      WHERE m.status = 'queued' AND NOT m.held AND m.next_attempt_at <= ${now}
      ORDER BY m.next_attempt_at, m.id
      LIMIT ${limit}
      FOR UPDATE OF m SKIP LOCKED
    )
    UPDATE email_messages m SET
      status = CASE WHEN due.suppressed THEN 'skipped' ELSE 'sending' END,
      attempts = CASE WHEN due.suppressed THEN m.attempts ELSE m.attempts + 1 END,
      lease_until = CASE WHEN due.suppressed THEN NULL ELSE ${leaseUntil}::timestamptz END,
      last_error = CASE WHEN due.suppressed THEN ${SUPPRESSED} ELSE m.last_error END
    FROM due
    WHERE m.id = due.id
    RETURNING m.id, m.status, m.attempts, m.to_email, m.category, m.template_id, m.template_version, m.vars,
      m.subject, m.html, m.text,
              m.campaign_id, m.broadcast_id, m.next_attempt_at, m.last_error
  `.execute(trx);
  const claimed: ClaimedMessage[] = [];
  const skipped: SettledMessage[] = [];
  for (const { status, last_error, ...row } of rows.rows) {
    if (status === 'skipped')
      skipped.push({ id: row.id, campaign_id: row.campaign_id, broadcast_id: row.broadcast_id, status, last_error });
    else claimed.push({ ...row, next_attempt_at: new Date(row.next_attempt_at) });
  }
  // Oldest due first, as they were chosen (RETURNING keeps no order).
  claimed.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || a.id.localeCompare(b.id));
  return { claimed, skipped };
}

/** The template versions the claimed messages are rendered from, keyed `template_id:version`. */
export async function templateVersionsOf(
  db: Db,
  messages: readonly Pick<ClaimedMessage, 'template_id' | 'template_version'>[],
): Promise<Map<string, TemplateParts>> {
  const templateIds = [...new Set(messages.flatMap((m) => (m.template_id === null ? [] : [m.template_id])))];
  if (templateIds.length === 0) return new Map();
  const versions = await db
    .selectFrom('email_template_versions')
    .select(['template_id', 'version', 'subject', 'html', 'text'])
    .where('template_id', 'in', templateIds)
    .where('version', 'in', [
      ...new Set(messages.flatMap((m) => (m.template_version === null ? [] : [m.template_version]))),
    ])
    .execute();
  return new Map(
    versions.map((v) => [versionKey(v.template_id, v.version), { subject: v.subject, html: v.html, text: v.text }]),
  );
}

export const versionKey = (templateId: string, version: number) => `${templateId}:${version}`;

/** How one claimed message ended this attempt. */
export type SendOutcome =
  | { status: 'sent'; at: Date; transport: 'smtp' | 'outbox'; transportMessageId: string }
  | { status: 'failed'; error: string }
  | { status: 'queued'; error: string; nextAttemptAt: Date }
  /**
   * Not attempted (the instance is stopping, or the lease is too short for another send): back to the queue as it was.
   */
  | { status: 'released' };

/**
 * Records an outcome, only while this claim still holds the row (status 'sending' at this
 * attempt): a claim that lost its lease changes nothing. Undefined when it did not hold it.
 */
export async function settleClaim(
  trx: Db,
  claim: Pick<ClaimedMessage, 'id' | 'attempts'>,
  outcome: SendOutcome,
): Promise<SettledMessage | undefined> {
  const base = trx
    .updateTable('email_messages')
    .where('id', '=', claim.id)
    .where('status', '=', 'sending')
    .where('attempts', '=', claim.attempts);
  const updated = (() => {
    switch (outcome.status) {
      case 'sent':
        return base.set({
          status: 'sent',
          sent_at: outcome.at,
          transport: outcome.transport,
          transport_message_id: outcome.transportMessageId,
          lease_until: null,
          last_error: null,
        });
      case 'failed':
        return base.set({ status: 'failed', last_error: outcome.error, lease_until: null });
      case 'queued':
        return base.set({
          status: 'queued',
          last_error: outcome.error,
          next_attempt_at: outcome.nextAttemptAt,
          lease_until: null,
        });
      case 'released':
        return base.set((eb) => ({ status: 'queued', attempts: eb('attempts', '-', 1), lease_until: null }));
    }
  })();
  const row = await updated.returning(['id', 'campaign_id', 'broadcast_id', 'status', 'last_error']).executeTakeFirst();
  if (row === undefined) return undefined;
  return { ...row, status: row.status as SettledMessage['status'] };
}
