import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { EmailCategory } from '../tables.js';
import '../tables.js';

/**
 * How other modules send mail: queue rows in the transaction of their cause (a campaign
 * launch, a broadcast, a receipt), and the dispatcher delivers them after commit. A rolled-back
 * cause queues nothing; a committed one is never lost. Modules may also INSERT … SELECT into
 * email_messages themselves (a campaign snapshotting its audience), as long as each row is
 * either templated (template_id + template_version, rendered at send time with vars) or literal
 * (subject + html + text).
 */

/** Rendered at send time from a fixed template version: later versions never change a queued mail. */
export interface TemplatedContent {
  template_id: string;
  template_version: number;
  vars?: Record<string, unknown>;
}

/** Sent as is. */
export interface LiteralContent {
  subject: string;
  html: string;
  text: string;
}

export type NewEmail = (TemplatedContent | LiteralContent) & {
  to_email: string;
  category: EmailCategory;
  user_id?: string | null;
  campaign_id?: string | null;
  broadcast_id?: string | null;
  /** Queued but not picked up until released (a paused campaign). */
  held?: boolean;
  /** Not sent before this time (default: now). */
  next_attempt_at?: Date;
};

const isTemplated = (email: NewEmail): email is NewEmail & TemplatedContent => 'template_id' in email;

/**
 * Inserts every message in one statement (arrays unnested server-side, so 50,000 rows are one
 * round trip and no parameter limit applies) and returns their ids in the order given.
 */
export async function queueEmails(trx: Kysely<Tables>, emails: readonly NewEmail[]): Promise<string[]> {
  if (emails.length === 0) return [];
  // Ids made here: RETURNING promises no order, and callers want to know which id is whose.
  const ids = emails.map(() => randomUUID());
  const column = <T>(pick: (email: NewEmail) => T) => emails.map(pick);
  const templated = (pick: (email: TemplatedContent) => unknown) => column((e) => (isTemplated(e) ? pick(e) : null));
  const literal = (pick: (email: LiteralContent) => string) => column((e) => (isTemplated(e) ? null : pick(e)));
  const now = new Date();
  await sql`
    INSERT INTO email_messages (id, to_email, category, user_id, template_id, template_version, vars, subject, html,
      text,
                                campaign_id, broadcast_id, held, next_attempt_at)
    SELECT id, to_email, category, user_id, template_id, template_version, vars::jsonb, subject, html, text,
           campaign_id, broadcast_id, held, next_attempt_at
    FROM unnest(
      ${ids}::uuid[], ${column((e) => e.to_email)}::text[], ${column((e) => e.category)}::text[],
        ${column((e) => e.user_id ?? null)}::uuid[],
      ${templated((e) => e.template_id)}::uuid[], ${templated((e) => e.template_version)}::integer[],
      ${column((e) => JSON.stringify(isTemplated(e) ? (e.vars ?? {}) : {}))}::text[],
      ${literal((e) => e.subject)}::text[], ${literal((e) => e.html)}::text[], ${literal((e) => e.text)}::text[],
      ${column((e) => e.campaign_id ?? null)}::uuid[], ${column((e) => e.broadcast_id ?? null)}::uuid[],
      ${column((e) => e.held ?? false)}::boolean[],
        ${column((e) => (e.next_attempt_at ?? now).toISOString())}::timestamptz[]
    ) AS m(id, to_email, category, user_id, template_id, template_version, vars, subject, html, text, campaign_id,
      broadcast_id, held, next_attempt_at)
  `.execute(trx);
  return ids;
}
