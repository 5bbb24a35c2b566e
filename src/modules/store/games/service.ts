import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidRequest, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { PUBLIC_STORE_TOPIC } from '../cache.js';
import { changesOf, normalizeIds } from './game-changes.js';
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
import type { CreateGameInput, GameView, ListGamesQuery, UpdateGameInput } from './schemas.js';
import { withConstraintErrors } from '../constraint-errors.js';
import { LINK_FIELDS, TERM_KINDS, termKindOfLinkField, type GameLinks } from '../term-kinds.js';
import { GAME_NAMES_AND_LINKS, gamePicture } from './audit-picture.js';

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
    private readonly write: Writes,
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
        this.write(actor, async (w) => {
          // The public store pages are cached: every instance drops them once this commits.
          w.invalidate(PUBLIC_STORE_TOPIC);
          await refuseUnknownLinks(w.trx, links);
          const id = await insertGame(w.trx, {
            ...fields,
            summary: fields.summary ?? null,
            description: fields.description ?? null,
            release_date: fields.release_date ?? null,
            website: fields.website ?? null,
            legal_notice: fields.legal_notice ?? null,
            content_description: fields.content_description ?? null,
          });
          await storeLinks(w.trx, id, links);
          await w.auditRow(gamePicture, {
            action: 'store.game.create',
            targetType: 'store_game',
            targetId: String(id),
            after: { ...fields, ...links },
            only: GAME_NAMES_AND_LINKS,
          });
          return gameOrThrow(w.trx, id);
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
        this.write(actor, async (w) => {
          // The public store pages are cached: every instance drops them once this commits.
          w.invalidate(PUBLIC_STORE_TOPIC);
          const current = await lockGame(w.trx, id);
          if (current === undefined) throw gameNotFound();
          const currentLinks = await gameLinks(w.trx, id);
          const requested: Partial<GameLinks> = {};
          for (const field of LINK_FIELDS)
            if (input[field] !== undefined) requested[field] = normalizeIds(input[field]);
          await refuseUnknownLinks(w.trx, requested);

          const changes = changesOf(current, currentLinks, input);
          if (changes.changed.length === 0) return gameOrThrow(w.trx, id);
          await updateGame(w.trx, id, changes.fields);
          await storeLinks(w.trx, id, changes.links);
          const after = await gameOrThrow(w.trx, id);
          await w.audit({
            action: 'store.game.update',
            targetType: 'store_game',
            targetId: String(id),
            before: changes.before,
            after: changes.after,
          });
          await w.publish({
            kind: 'dashboard',
            name: 'store.game_updated',
            payload: { game_id: id, slug: after.slug, status: after.status, changed: changes.changed },
          });
          return after;
        }),
      slugTaken(input.slug),
    );
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.write(actor, async (w) => {
      // The public store pages are cached: every instance drops them once this commits.
      w.invalidate(PUBLIC_STORE_TOPIC);
      const current = await lockGame(w.trx, id);
      if (current === undefined) throw gameNotFound();
      const links = await gameLinks(w.trx, id);
      await deleteGame(w.trx, id);
      await w.auditRow(gamePicture, {
        action: 'store.game.delete',
        targetType: 'store_game',
        targetId: String(id),
        before: { ...current, ...links },
        only: GAME_NAMES_AND_LINKS,
      });
    });
  }
}
