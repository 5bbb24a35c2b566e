import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import type { ChangeBus } from '../../kernel/change-bus.js';
import { invalidRequest, notFound } from '../../kernel/errors.js';
import type { EventPublisher } from '../../kernel/events.js';
import { paged } from '../../kernel/pagination.js';
import { PUBLIC_STORE_TOPIC } from './public-cache.js';
import { auditSummary, changedFieldNames, changesOf, normalizeIds } from './game-changes.js';
import {
  deleteGame,
  findGame,
  gameLinks,
  insertGame,
  listGames,
  lockGame,
  missingTermIds,
  replaceLinks,
  updateGame,
} from './queries.js';
import {
  LINK_FIELDS,
  type CreateGameInput,
  type GameLinks,
  type GameView,
  type ListGamesQuery,
  type UpdateGameInput,
} from './schemas.js';
import { withConstraintErrors } from './store-errors.js';
import { TERM_KINDS, termKindOfLinkField } from './terms.js';

const gameNotFound = () => notFound('game_not_found');
const slugTaken = (slug: string | undefined) => () => ({ reason: 'slug taken', slug });

/** 422 naming every id that links to nothing, per list (`genre_ids`, …). */
async function refuseUnknownLinks(trx: Kysely<Tables>, links: Partial<GameLinks>): Promise<void> {
  const unknown: Partial<GameLinks> = {};
  for (const field of LINK_FIELDS) {
    const ids = links[field];
    if (ids === undefined) continue;
    const missing = await missingTermIds(trx, TERM_KINDS[termKindOfLinkField(field)], ids);
    if (missing.length > 0) unknown[field] = missing;
  }
  if (Object.keys(unknown).length > 0) throw invalidRequest({ reason: 'unknown linked ids', ...unknown });
}

async function storeLinks(trx: Kysely<Tables>, gameId: number, links: Partial<GameLinks>): Promise<void> {
  for (const field of LINK_FIELDS) {
    const ids = links[field];
    if (ids !== undefined) await replaceLinks(trx, TERM_KINDS[termKindOfLinkField(field)], gameId, ids);
  }
}

async function gameOrThrow(db: Kysely<Tables>, id: number): Promise<GameView> {
  const game = await findGame(db, id);
  if (game === undefined) throw gameNotFound();
  return game;
}

/** Staff administration of store games (operation 20 and the console's lists, gets and creates). */
export class StoreGamesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly events: EventPublisher,
    private readonly bus: ChangeBus,
  ) {}

  async list(query: ListGamesQuery) {
    const { rows, total } = await listGames(this.db, query);
    return paged(rows, query, total);
  }

  get(id: number): Promise<GameView> {
    return gameOrThrow(this.db, id);
  }

  create(actor: Actor, input: CreateGameInput): Promise<GameView> {
    const { genre_ids, developer_ids, publisher_ids, ...fields } = input;
    const links: GameLinks = {
      genre_ids: normalizeIds(genre_ids),
      developer_ids: normalizeIds(developer_ids),
      publisher_ids: normalizeIds(publisher_ids),
    };
    return withConstraintErrors(
      () =>
        this.bus.transaction(this.db, async (trx) => {
          // The public store pages are cached: every instance drops them once this commits.
          await this.bus.invalidate(trx, PUBLIC_STORE_TOPIC);
          await refuseUnknownLinks(trx, links);
          const id = await insertGame(trx, {
            ...fields,
            summary: fields.summary ?? null,
            description: fields.description ?? null,
            release_date: fields.release_date ?? null,
            website: fields.website ?? null,
            legal_notice: fields.legal_notice ?? null,
            content_description: fields.content_description ?? null,
          });
          await storeLinks(trx, id, links);
          await recordAudit(trx, actor, {
            action: 'store.game.create',
            targetType: 'store_game',
            targetId: String(id),
            after: {
              slug: fields.slug,
              title: fields.title,
              status: fields.status,
              game_type: fields.game_type,
              ...links,
            },
          });
          return gameOrThrow(trx, id);
        }),
      slugTaken(input.slug),
    );
  }

  /**
   * Operation 20: any input fields; omitted fields and link lists stay, `[]` clears a list.
   * An update that changes nothing writes, audits and emits nothing.
   */
  update(actor: Actor, id: number, input: UpdateGameInput): Promise<GameView> {
    return withConstraintErrors(
      () =>
        this.bus.transaction(this.db, async (trx) => {
          // The public store pages are cached: every instance drops them once this commits.
          await this.bus.invalidate(trx, PUBLIC_STORE_TOPIC);
          const current = await lockGame(trx, id);
          if (current === undefined) throw gameNotFound();
          const currentLinks = await gameLinks(trx, id);
          const requested: Partial<GameLinks> = {};
          for (const field of LINK_FIELDS)
            if (input[field] !== undefined) requested[field] = normalizeIds(input[field]);
          await refuseUnknownLinks(trx, requested);

          const changes = changesOf(current, currentLinks, input);
          const changed = changedFieldNames(changes);
          if (changed.length === 0) return gameOrThrow(trx, id);
          await updateGame(trx, id, changes.fields);
          await storeLinks(trx, id, changes.links);
          const after = await gameOrThrow(trx, id);
          await recordAudit(trx, actor, {
            action: 'store.game.update',
            targetType: 'store_game',
            targetId: String(id),
            ...auditSummary(current, currentLinks, changes),
          });
          await this.events.publish(trx, {
            kind: 'dashboard',
            name: 'store.game_updated',
            payload: { game_id: id, slug: after.slug, status: after.status, changed },
            actorId: actor.userId,
            requestId: actor.requestId,
          });
          return after;
        }),
      slugTaken(input.slug),
    );
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.bus.transaction(this.db, async (trx) => {
      // The public store pages are cached: every instance drops them once this commits.
      await this.bus.invalidate(trx, PUBLIC_STORE_TOPIC);
      const current = await lockGame(trx, id);
      if (current === undefined) throw gameNotFound();
      const links = await gameLinks(trx, id);
      await deleteGame(trx, id);
      await recordAudit(trx, actor, {
        action: 'store.game.delete',
        targetType: 'store_game',
        targetId: String(id),
        before: {
          slug: current.slug,
          title: current.title,
          status: current.status,
          game_type: current.game_type,
          ...links,
        },
      });
    });
  }
}
