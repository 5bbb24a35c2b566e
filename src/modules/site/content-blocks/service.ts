import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { recordAudit } from '../../../kernel/audit.js';
import type { ChangeBus } from '../../../kernel/change-bus.js';
import { notFound } from '../../../kernel/errors.js';
import type { EventPublisher } from '../../../kernel/events.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/site-cache.js';
import { findBlock, listBlocks, lockBlock, toBlockView, updateBlock, upsertBlockDraft } from './queries.js';
import type { ListBlocksQuery, StatusInput, UpsertBlockInput } from './schemas.js';

export class ContentBlocksService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly bus: ChangeBus,
    private readonly events: EventPublisher,
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
    return this.bus.transaction(this.db, async (trx) => {
      const { id, created } = await upsertBlockDraft(trx, input, actor.userId);
      const target = { surface: input.surface, slot: input.slot, locale: input.locale };
      await recordAudit(trx, actor, {
        action: created ? 'site.content_block.create' : 'site.content_block.update',
        targetType: 'content_block',
        targetId: id,
        after: { ...target, sortOrder: input.sortOrder, draft_keys: Object.keys(input.draft).sort() },
      });
      await this.events.publish(trx, {
        kind: 'dashboard',
        name: 'site.content_block_updated',
        payload: { id, ...target, created },
        actorId: actor.userId,
        requestId: actor.requestId,
      });
      return { id };
    });
  }

  /** Publish (draft goes live), archive (off the site, kept) or back to draft (unpublished). */
  async setStatus(actor: Actor, id: string, input: StatusInput) {
    return this.bus.transaction(this.db, async (trx) => {
      const before = await lockBlock(trx, id);
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
      const after = await updateBlock(trx, id, { ...changes, updated_by: actor.userId, updated_at: now });
      await recordAudit(trx, actor, {
        action: 'site.content_block.status',
        targetType: 'content_block',
        targetId: id,
        before: { status: before.status },
        after: { status: after.status },
      });
      await this.events.publish(trx, {
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
        actorId: actor.userId,
        requestId: actor.requestId,
      });
      await this.bus.invalidate(trx, SITE_CONFIG_TOPIC);
      return toBlockView(after);
    });
  }
}
