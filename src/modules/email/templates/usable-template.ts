import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { invalidRequest, notFound } from '../../../kernel/errors.js';
import type { EmailCategory } from '../tables.js';
import { shareLockTemplateByKey } from './queries.js';

/** A template mail can be made from now: its published version, which messages reference. */
export interface UsableTemplate {
  id: string;
  key: string;
  category: EmailCategory;
  version: number;
}

/**
 * The published version of the template named `key`, for campaigns and broadcasts.
 * 404 `not_found` (details `template_key`) for an unknown key; 422 `invalid_request` when it has
 * no published version (the spec's broadcast names exactly this case).
 *
 * Run inside the caller's transaction, the template row stays share-locked until it commits, so
 * the version cannot be unpublished, republished or the template deleted while the caller queues
 * messages from it.
 */
export async function findUsableTemplate(db: Kysely<Tables>, key: string): Promise<UsableTemplate> {
  const row = await shareLockTemplateByKey(db, key);
  if (row === undefined) throw notFound('not_found', { template_key: key });
  if (row.published_version === null)
    throw invalidRequest({ reason: 'the template has no published version', template_key: key });
  return { id: row.id, key: row.key, category: row.category, version: row.published_version };
}
