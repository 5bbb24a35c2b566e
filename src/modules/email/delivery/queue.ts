import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { NewEmail } from './new-email.js';
import { insertMessages } from './queries.js';

export type { LiteralContent, NewEmail, TemplatedContent } from './new-email.js';

/**
 * How other modules send mail: queue rows in the transaction of their cause (a campaign
 * launch, a broadcast, a receipt), and the dispatcher delivers them after commit. A rolled-back
 * cause queues nothing; a committed one is never lost. Modules may also INSERT … SELECT into
 * email_messages themselves (a campaign snapshotting its audience), as long as each row is
 * either templated (template_id + template_version, rendered at send time with vars) or literal
 * (subject + html + text).
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
