import { randomUUID } from 'node:crypto';
import type { Expression, Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { NewEmail } from './new-email.js';
import { insertMessages } from './queries.js';

export type { LiteralContent, NewEmail, TemplatedContent } from './new-email.js';

/**
 * How other modules send mail: queue rows in the transaction of their cause (a campaign
 * launch, a broadcast, a receipt), and the dispatcher delivers them after commit. A rolled-back
 * cause queues nothing; a committed one is never lost. A message is either templated
 * (template_id + template_version, rendered at send time with vars) or literal (subject + html +
 * text). The email family owns email_messages: another area that selects its recipients in SQL
 * passes the select to queueSelectedEmails (one INSERT … SELECT).
 */

/**
 * Inserts every message in one statement (arrays unnested server-side, so 50,000 rows are one
 * round trip and no parameter limit applies) and returns their ids in the order given.
 */
export async function queueEmails(trx: Kysely<Tables>, emails: readonly NewEmail[]): Promise<string[]> {
  if (emails.length === 0) return [];
  // Ids made here: RETURNING promises no order, and callers want to know which id is whose.
  const ids = emails.map(() => randomUUID());
  await insertMessages(trx, ids, emails, new Date());
  return ids;
}

/** The columns of a templated message another area selects for queueSelectedEmails. */
export interface SelectedTemplatedEmail {
  to_email: string;
  user_id: string;
  category: string;
  template_id: string;
  template_version: number;
  vars: string;
  broadcast_id: string;
}

/** Queues one templated message per row of the caller's select, in one statement; answers how many. */
export async function queueSelectedEmails(
  trx: Kysely<Tables>,
  rows: Expression<SelectedTemplatedEmail>,
): Promise<number> {
  const inserted = await trx
    .insertInto('email_messages')
    .columns(['to_email', 'user_id', 'category', 'template_id', 'template_version', 'vars', 'broadcast_id'])
    .expression(rows)
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}
