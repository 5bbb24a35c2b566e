import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import type { Writes } from '../../../kernel/write.js';
import { findBlock, listBlocks, lockBlock, toBlockView, updateBlock, upsertBlockDraft } from './queries.js';
import type { ListBlocksQuery, StatusInput, UpsertBlockInput } from './schemas.js';
import { contentBlockPicture } from './audit-picture.js';

export class ContentBlocksService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async list(query: ListBlocksQuery) {
    const { rows, total } = await listBlocks(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string) {
    const row = await findBlock(this.db, id);
    if (row === undefined) throw notFound();
    return toBlockView(row);
  }

  /** Operation 7: upsert the draft; the id is stable across upserts of the same block. */
  async upsert(actor: Actor, input: UpsertBlockInput): Promise<{ id: string }> {
    return this.write(actor, async (w) => {
      const { id, created } = await upsertBlockDraft(w.trx, input, actor.userId);
      const target = { surface: input.surface, slot: input.slot, locale: input.locale };
      await w.auditRow(contentBlockPicture, {
        action: created ? 'site.content_block.create' : 'site.content_block.update',
        targetType: 'content_block',
        targetId: id,
        after: { ...input, sort_order: input.sortOrder },
        only: ['surface', 'slot', 'locale', 'sort_order', 'draft'],
      });
      await w.publish({ kind: 'dashboard', name: 'site.content_block_updated', payload: { id, ...target, created } });
      return { id };
    });
  }

  /** Publish (draft goes live), archive (off the site, kept) or back to draft (unpublished). */
  async setStatus(actor: Actor, id: string, input: StatusInput) {
    return this.write(actor, async (w) => {
      const before = await lockBlock(w.trx, id);
      if (before === undefined) throw notFound();
      const now = new Date();
      const changes =
        input.status === 'published'
          ? {
              status: 'published' as const,
              published: JSON.stringify(before.draft),
              published_at: now,
              published_by: actor.userId,
            }
          : input.status === 'draft'
            ? { status: 'draft' as const, published: null, published_at: null, published_by: null }
            : { status: 'archived' as const };
      const after = await updateBlock(w.trx, id, { ...changes, updated_by: actor.userId, updated_at: now });
      await w.auditRow(contentBlockPicture, {
        action: 'site.content_block.status',
        targetType: 'content_block',
        targetId: id,
        before,
        after,
        only: ['status'],
      });
      await w.publish({
        kind: 'dashboard',
        name: 'site.content_block_status_changed',
        payload: {
          id,
          surface: after.surface,
          slot: after.slot,
          locale: after.locale,
          from: before.status,
          to: after.status,
        },
      });
      w.invalidate(SITE_CONFIG_TOPIC);
      return toBlockView(after);
    });
  }
}
