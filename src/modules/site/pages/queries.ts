import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { ListPagesQuery, PageView, VersionSummary, VersionsQuery } from './schemas.js';
import './tables.js';

function pageViews(db: Kysely<Tables>) {
  return db.selectFrom('site_pages').select((eb) => [
    'site_pages.id',
    'site_pages.slug',
    'site_pages.title',
    'site_pages.published_version',
    'site_pages.published_at',
    'site_pages.published_by',
    'site_pages.created_by',
    'site_pages.created_at',
    'site_pages.updated_at',
    eb
      .selectFrom('site_page_versions')
      .select((v) => v.fn.max<number>('version').as('v'))
      .whereRef('page_id', '=', 'site_pages.id')
      .as('latest_version'),
  ]);
}

export async function listPages(
  db: Kysely<Tables>,
  query: ListPagesQuery,
): Promise<{ rows: PageView[]; total: number }> {
  let filtered = db.selectFrom('site_pages');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('slug', 'ilike', pattern), eb('title', 'ilike', pattern)]));
  }
  if (query.published !== undefined) {
    filtered = filtered.where('published_version', query.published === 'true' ? 'is not' : 'is', null);
  }
  const { rows, total } = await readPage(filtered, query, (matching) =>
    pageViews(db)
      .where('site_pages.id', 'in', matching.select('id'))
      .orderBy(`site_pages.${query.sort.field}`, query.sort.direction)
      .orderBy('site_pages.id'),
  );
  return { rows: rows.map(withLatest), total };
}

export async function findPage(db: Kysely<Tables>, id: string): Promise<PageView | undefined> {
  const row = await pageViews(db).where('site_pages.id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : withLatest(row);
}

function withLatest<T extends { latest_version: number | null }>(row: T): T {
  return { ...row, latest_version: row.latest_version === null ? null : Number(row.latest_version) };
}

/** The page row locked for the rest of the transaction: concurrent writers of one page queue up. */
export function lockPage(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('site_pages').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function insertPage(trx: Kysely<Tables>, values: { slug: string; title: string; createdBy: string }) {
  return trx
    .insertInto('site_pages')
    .values({ slug: values.slug, title: values.title, created_by: values.createdBy })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updatePage(
  trx: Kysely<Tables>,
  id: string,
  changes: { slug: string; title: string },
): Promise<void> {
  await trx
    .updateTable('site_pages')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Only safe under the page row lock (see lockPage): two savers never read the same maximum. */
export async function nextVersionNumber(trx: Kysely<Tables>, pageId: string): Promise<number> {
  const row = await trx
    .selectFrom('site_page_versions')
    .select(sql<number>`coalesce(max(version), 0)::int`.as('n'))
    .where('page_id', '=', pageId)
    .executeTakeFirstOrThrow();
  return row.n + 1;
}

export interface NewVersion {
  pageId: string;
  version: number;
  markdown: string;
  note: string | null;
  createdBy: string;
}

export async function insertVersion(trx: Kysely<Tables>, values: NewVersion): Promise<void> {
  await trx
    .insertInto('site_page_versions')
    .values({
      page_id: values.pageId,
      version: values.version,
      markdown: values.markdown,
      note: values.note,
      created_by: values.createdBy,
    })
    .execute();
  // A new version is activity on the page (lists sort by it), though nothing goes live.
  await trx.updateTable('site_pages').set({ updated_at: new Date() }).where('id', '=', values.pageId).execute();
}

function versionSummaries(db: Kysely<Tables>, pageId: string) {
  return db
    .selectFrom('site_page_versions as v')
    .innerJoin('site_pages as p', 'p.id', 'v.page_id')
    .leftJoin('user_directory as u', 'u.id', 'v.created_by')
    .where('v.page_id', '=', pageId)
    .select([
      'v.version',
      'v.note',
      'v.created_by',
      'u.email as created_by_email',
      'v.created_at',
      sql<number>`char_length(v.markdown)`.as('markdown_length'),
      sql<boolean>`(p.published_version IS NOT DISTINCT FROM v.version)`.as('is_published'),
    ]);
}

export async function listVersions(
  db: Kysely<Tables>,
  pageId: string,
  query: VersionsQuery,
): Promise<{ rows: VersionSummary[]; total: number }> {
  return readPage(db.selectFrom('site_page_versions').where('page_id', '=', pageId), query, () =>
    versionSummaries(db, pageId).orderBy('v.version', query.sort.direction),
  );
}

export function findVersion(db: Kysely<Tables>, pageId: string, version: number) {
  return versionSummaries(db, pageId).select('v.markdown').where('v.version', '=', version).executeTakeFirst();
}

export function versionExists(trx: Kysely<Tables>, pageId: string, version: number) {
  return trx
    .selectFrom('site_page_versions')
    .select('version')
    .where('page_id', '=', pageId)
    .where('version', '=', version)
    .executeTakeFirst();
}

/** Makes a version live (or, with null, takes the page offline). */
export async function setPublished(
  trx: Kysely<Tables>,
  pageId: string,
  published: { version: number; by: string } | null,
): Promise<void> {
  const now = new Date();
  await trx
    .updateTable('site_pages')
    .set(
      published === null
        ? { published_version: null, published_at: null, published_by: null, updated_at: now }
        : { published_version: published.version, published_at: now, published_by: published.by, updated_at: now },
    )
    .where('id', '=', pageId)
    .execute();
}

/** The live version of a page by slug, for the public read; undefined when unknown or unpublished. */
export async function publishedPageBySlug(db: Kysely<Tables>, slug: string) {
  const row = await db
    .selectFrom('site_pages as p')
    .innerJoin('site_page_versions as v', (join) =>
      join.onRef('v.page_id', '=', 'p.id').onRef('v.version', '=', 'p.published_version'),
    )
    .select(['p.slug', 'p.title', 'v.markdown', 'v.version', 'p.published_at'])
    .where('p.slug', '=', slug)
    .executeTakeFirst();
  // The join only matches a live page, whose published_at is always set (a CHECK says so).
  if (row === undefined || row.published_at === null) return undefined;
  return { ...row, published_at: row.published_at };
}

export interface PublishedPageEntry {
  slug: string;
  title: string;
  version: number;
  published_at: Date;
}

/** Every live page (no markdown), by slug: the index the public site payload carries. */
export async function publishedPagesIndex(db: Kysely<Tables>): Promise<PublishedPageEntry[]> {
  const rows = await db
    .selectFrom('site_pages')
    .select(['slug', 'title', 'published_version', 'published_at'])
    .where('published_version', 'is not', null)
    .orderBy('slug')
    .execute();
  return rows.map((row) => ({
    slug: row.slug,
    title: row.title,
    version: row.published_version as number,
    published_at: row.published_at as Date,
  }));
}
