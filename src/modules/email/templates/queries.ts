import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { EmailCategory } from '../tables.js';
import '../tables.js';
import type { ListTemplatesQuery, TemplateSummary, VersionSummary } from './schemas.js';

const SUMMARY_COLUMNS = [
  't.id',
  't.key',
  't.name',
  't.description',
  't.category',
  't.published_version',
  't.published_at',
  't.created_by',
  't.updated_by',
  't.created_at',
  't.updated_at',
] as const;

function templateSummaries(db: Kysely<Tables>) {
  return db
    .selectFrom('email_templates as t')
    .select((eb) => [
      ...SUMMARY_COLUMNS,
      eb
        .selectFrom('email_template_versions as v')
        .select(sql<number | null>`max(v.version)`.as('n'))
        .whereRef('v.template_id', '=', 't.id')
        .as('latest_version'),
    ]);
}

export async function listTemplates(
  db: Kysely<Tables>,
  query: ListTemplatesQuery,
): Promise<{ rows: TemplateSummary[]; total: number }> {
  let filtered = db.selectFrom('email_templates');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('key', 'ilike', pattern), eb('name', 'ilike', pattern)]));
  }
  if (query.category !== undefined) filtered = filtered.where('category', '=', query.category);
  if (query.published !== undefined)
    filtered = filtered.where('published_version', query.published === 'true' ? 'is not' : 'is', null);
  return readPage(filtered, query, (matching) =>
    templateSummaries(db)
      .where('t.id', 'in', matching.select('id'))
      .orderBy(`t.${query.sort.field}`, query.sort.direction)
      .orderBy('t.id'),
  );
}

export function findTemplateSummary(db: Kysely<Tables>, key: string): Promise<TemplateSummary | undefined> {
  return templateSummaries(db).where('t.key', '=', key).executeTakeFirst();
}

/** The template row locked for the rest of the transaction: concurrent writers of one template queue up. */
export function lockTemplate(trx: Kysely<Tables>, key: string) {
  return trx.selectFrom('email_templates').selectAll().where('key', '=', key).forUpdate().executeTakeFirst();
}

/** The template named `key`, share-locked for the rest of the transaction; undefined: none. */
export function shareLockTemplateByKey(db: Kysely<Tables>, key: string) {
  return db
    .selectFrom('email_templates')
    .select(['id', 'key', 'category', 'published_version'])
    .where('key', '=', key)
    .forShare()
    .executeTakeFirst();
}

export interface NewTemplate {
  key: string;
  name: string;
  description: string | null;
  category: EmailCategory;
  createdBy: string;
}

export function insertTemplate(trx: Kysely<Tables>, values: NewTemplate) {
  return trx
    .insertInto('email_templates')
    .values({
      key: values.key,
      name: values.name,
      description: values.description,
      category: values.category,
      created_by: values.createdBy,
      updated_by: values.createdBy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updateTemplate(
  trx: Kysely<Tables>,
  id: string,
  changes: {
    name?: string;
    description?: string | null;
    category?: EmailCategory;
    published_version?: number | null;
    published_at?: Date | null;
  },
  by: string,
): Promise<void> {
  await trx
    .updateTable('email_templates')
    .set({ ...changes, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function deleteTemplate(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.deleteFrom('email_templates').where('id', '=', id).execute();
}

/** Only safe under the template row lock (see lockTemplate): two writers never read the same maximum. */
export async function nextVersionNumber(trx: Kysely<Tables>, templateId: string): Promise<number> {
  const row = await trx
    .selectFrom('email_template_versions')
    .select(sql<number>`coalesce(max(version), 0)::int`.as('n'))
    .where('template_id', '=', templateId)
    .executeTakeFirstOrThrow();
  return row.n + 1;
}

export interface NewVersion {
  templateId: string;
  version: number;
  subject: string;
  html: string;
  text: string;
  note: string | null;
  createdBy: string;
}

export async function insertVersion(trx: Kysely<Tables>, values: NewVersion): Promise<void> {
  await trx
    .insertInto('email_template_versions')
    .values({
      template_id: values.templateId,
      version: values.version,
      subject: values.subject,
      html: values.html,
      text: values.text,
      note: values.note,
      created_by: values.createdBy,
    })
    .execute();
}

const VERSION_SUMMARY_COLUMNS = ['v.version', 'v.subject', 'v.note', 'v.created_by', 'v.created_at'] as const;

function versionRows(db: Kysely<Tables>, templateId: string) {
  return db
    .selectFrom('email_template_versions as v')
    .innerJoin('email_templates as t', 't.id', 'v.template_id')
    .where('v.template_id', '=', templateId)
    .select([
      ...VERSION_SUMMARY_COLUMNS,
      sql<boolean>`(t.published_version IS NOT DISTINCT FROM v.version)`.as('is_published'),
    ]);
}

/** Every version of a template, newest first, without bodies. */
export function listVersions(db: Kysely<Tables>, templateId: string): Promise<VersionSummary[]> {
  return versionRows(db, templateId).orderBy('v.version', 'desc').execute();
}

/** One version with its bodies. */
export function findVersion(db: Kysely<Tables>, templateId: string, version: number) {
  return versionRows(db, templateId).select(['v.html', 'v.text']).where('v.version', '=', version).executeTakeFirst();
}

export async function newestVersionNumber(db: Kysely<Tables>, templateId: string): Promise<number | null> {
  const row = await db
    .selectFrom('email_template_versions')
    .select(sql<number | null>`max(version)`.as('n'))
    .where('template_id', '=', templateId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** How many messages (queued, sent or otherwise) were made from any version of the template. */
export async function countMessagesOf(trx: Kysely<Tables>, templateId: string): Promise<number> {
  const row = await trx
    .selectFrom('email_messages')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('template_id', '=', templateId)
    .executeTakeFirstOrThrow();
  return row.n;
}
