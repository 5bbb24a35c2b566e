import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { readPage } from '../../../kernel/pagination.js';
import type { VersionsQuery } from './schemas.js';

export function listSections(db: Kysely<Tables>) {
  return db
    .selectFrom('site_settings')
    .select([
      'section',
      'draft',
      'draft_updated_by',
      'draft_updated_at',
      'published_version',
      'published_value',
      'published_by',
      'published_at',
    ])
    .execute();
}

export function lockSection(trx: Kysely<Tables>, section: string) {
  return trx.selectFrom('site_settings').selectAll().where('section', '=', section).forUpdate().executeTakeFirst();
}

/** Every section's published value, for the public site payload. */
export async function publishedValues(db: Kysely<Tables>): Promise<Record<string, unknown>> {
  const rows = await db
    .selectFrom('site_settings')
    .select(['section', 'published_value'])
    .where('published_version', 'is not', null)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.section, row.published_value]));
}

export async function listVersions(db: Kysely<Tables>, section: string, query: VersionsQuery) {
  const filtered = db.selectFrom('site_settings_versions').where('site_settings_versions.section', '=', section);
  const { rows, total } = await readPage(filtered, query, (versions) =>
    versions
      .leftJoin('user_directory as users', 'users.id', 'site_settings_versions.published_by')
      .select([
        'site_settings_versions.version',
        'site_settings_versions.value',
        'site_settings_versions.note',
        'site_settings_versions.restored_version',
        'site_settings_versions.published_by',
        'users.email as published_by_email',
        'site_settings_versions.published_at',
      ])
      .orderBy('site_settings_versions.version', query.sort.direction),
  );
  return { rows: rows.map((row) => ({ ...row, value: row.value as Record<string, unknown> })), total };
}

export function findVersion(db: Kysely<Tables>, section: string, version: number) {
  return db
    .selectFrom('site_settings_versions')
    .selectAll()
    .where('section', '=', section)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function saveSectionDraft(
  trx: Kysely<Tables>,
  section: string,
  draft: { json: string; by: string | null; at: Date },
): Promise<void> {
  await trx
    .updateTable('site_settings')
    .set({ draft: draft.json, draft_updated_by: draft.by, draft_updated_at: draft.at })
    .where('section', '=', section)
    .execute();
}

export interface PublishValues {
  section: string;
  version: number;
  value: unknown;
  note: string | null;
  restoredVersion: number | null;
  publishedBy: string;
}

export async function insertPublishedVersion(trx: Kysely<Tables>, values: PublishValues): Promise<Date> {
  const json = JSON.stringify(values.value);
  const row = await trx
    .insertInto('site_settings_versions')
    .values({
      section: values.section,
      version: values.version,
      value: json,
      note: values.note,
      restored_version: values.restoredVersion,
      published_by: values.publishedBy,
    })
    .returning('published_at')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('site_settings')
    .set({
      published_version: values.version,
      published_value: json,
      published_by: values.publishedBy,
      published_at: row.published_at,
    })
    .where('section', '=', values.section)
    .execute();
  return row.published_at;
}
