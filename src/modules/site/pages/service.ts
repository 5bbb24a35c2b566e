import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import type { AuditedWrite, Writes } from '../../../kernel/write.js';
import {
  findPage,
  findVersion,
  insertPage,
  insertVersion,
  listPages,
  listVersions,
  lockPage,
  nextVersionNumber,
  publishedPageBySlug,
  setPublished,
  updatePage,
  versionExists,
} from './queries.js';
import type { CreatePageInput, ListPagesQuery, SaveVersionInput, UpdatePageInput, VersionsQuery } from './schemas.js';
import { pagePicture, pageVersionPicture } from './audit-picture.js';

const UNIQUE_VIOLATION = '23505';

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/** The slug is the only unique column a page write can collide on. */
async function refusingTakenSlug<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict({ reason: 'slug taken', slug });
    throw error;
  }
}

async function lockedPageOrThrow(trx: Kysely<Tables>, id: string) {
  const page = await lockPage(trx, id);
  if (page === undefined) throw notFound();
  return page;
}

/** What goes live is on the dashboard, and every instance drops its cached site payload. */
async function announce(w: AuditedWrite, name: string, payload: Record<string, unknown>): Promise<void> {
  await w.publish({ kind: 'dashboard', name, payload });
  w.invalidate(SITE_CONFIG_TOPIC);
}

/** Site pages: markdown versions that are never edited, and the one that is live. */
export class PagesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async list(query: ListPagesQuery) {
    const { rows, total } = await listPages(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string) {
    const page = await findPage(this.db, id);
    if (page === undefined) throw notFound();
    return page;
  }

  create(actor: Actor, input: CreatePageInput): Promise<{ id: string }> {
    return refusingTakenSlug(input.slug, () =>
      this.write(actor, async (w) => {
        const { id } = await insertPage(w.trx, { slug: input.slug, title: input.title, createdBy: actor.userId });
        await w.auditRow(pagePicture, {
          action: 'site.page.create',
          targetType: 'site_page',
          targetId: id,
          after: input,
        });
        return { id };
      }),
    );
  }

  /** Renames or re-slugs a page; a live page's new slug and title show in the public index at once. */
  async update(actor: Actor, id: string, input: UpdatePageInput): Promise<void> {
    await refusingTakenSlug(input.slug, () =>
      this.write(actor, async (w) => {
        const current = await lockedPageOrThrow(w.trx, id);
        const changes = { slug: input.slug ?? current.slug, title: input.title ?? current.title };
        await updatePage(w.trx, id, changes);
        await w.auditRow(pagePicture, {
          action: 'site.page.update',
          targetType: 'site_page',
          targetId: id,
          before: current,
          after: changes,
          only: ['slug', 'title'],
        });
        if (current.published_version !== null) w.invalidate(SITE_CONFIG_TOPIC);
      }),
    );
  }

  /** Operation 10: stores the next immutable version; nothing goes live. */
  saveVersion(actor: Actor, id: string, input: SaveVersionInput): Promise<{ version: number }> {
    return this.write(actor, async (w) => {
      await lockedPageOrThrow(w.trx, id);
      const version = await nextVersionNumber(w.trx, id);
      const note = input.note ?? null;
      await insertVersion(w.trx, { pageId: id, version, markdown: input.markdown, note, createdBy: actor.userId });
      await w.auditRow(pageVersionPicture, {
        action: 'site.page.version',
        targetType: 'site_page',
        targetId: id,
        reason: note,
        after: { version, markdown: input.markdown },
      });
      return { version };
    });
  }

  async versions(id: string, query: VersionsQuery) {
    await this.get(id);
    const { rows, total } = await listVersions(this.db, id, query);
    return paged(rows, query, total);
  }

  async version(id: string, version: number) {
    await this.get(id);
    const row = await findVersion(this.db, id, version);
    if (row === undefined) throw notFound('not_found', { version });
    return row;
  }

  /** Makes a stored version live (any version: publishing an older one is a rollback). */
  publish(actor: Actor, id: string, version: number): Promise<{ version: number }> {
    return this.write(actor, async (w) => {
      const current = await lockedPageOrThrow(w.trx, id);
      if ((await versionExists(w.trx, id, version)) === undefined) throw notFound('not_found', { version });
      await setPublished(w.trx, id, { version, by: actor.userId });
      await w.auditRow(pagePicture, {
        action: 'site.page.publish',
        targetType: 'site_page',
        targetId: id,
        before: current,
        after: { published_version: version },
        only: ['published_version'],
      });
      await announce(w, 'site.page_published', { page_id: id, slug: current.slug, version });
      return { version };
    });
  }

  /** Takes the page offline; a page that is not live is left as it is (nothing audited). */
  async unpublish(actor: Actor, id: string): Promise<void> {
    await this.write(actor, async (w) => {
      const current = await lockedPageOrThrow(w.trx, id);
      if (current.published_version === null) return;
      await setPublished(w.trx, id, null);
      await w.auditRow(pagePicture, {
        action: 'site.page.unpublish',
        targetType: 'site_page',
        targetId: id,
        before: current,
        after: { published_version: null },
        only: ['published_version'],
      });
      await announce(w, 'site.page_unpublished', {
        page_id: id,
        slug: current.slug,
        version: current.published_version,
      });
    });
  }

  async publicPage(slug: string) {
    const page = await publishedPageBySlug(this.db, slug);
    if (page === undefined) throw notFound();
    return page;
  }
}
