import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidRequest, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { PUBLIC_STORE_TOPIC } from '../cache.js';
import { withConstraintErrors } from '../constraint-errors.js';
import { deleteTerm, findTerm, insertTerm, listTerms, lockTerm, updateTerm } from './queries.js';
import type { CreateTermInput, ListTermsQuery, TermView, UpdateTermInput } from './schemas.js';
import { slugFromName, TERM_KINDS, type TermConfig, type TermKind } from '../term-kinds.js';
import { termPicture } from './audit-picture.js';

/** 409 saying which unique value is taken: the name (any case) or the slug. */
function takenValue(term: TermConfig, input: { name?: string; slug?: string }) {
  return (constraint: string) =>
    constraint === `${term.table}_name_key`
      ? { reason: `${term.noun} name taken`, name: input.name }
      : { reason: `${term.noun} slug taken`, slug: input.slug };
}

/** Genres, developers and publishers: staff lists and edits, one service per kind. */
export class StoreTermsService {
  readonly #term: TermConfig;

  constructor(
    private readonly db: Kysely<Tables>,
    kind: TermKind,
    private readonly write: Writes,
  ) {
    this.#term = TERM_KINDS[kind];
  }

  async list(query: ListTermsQuery) {
    const { rows, total } = await listTerms(this.db, this.#term, query);
    return paged(rows, query, total);
  }

  create(actor: Actor, input: CreateTermInput): Promise<TermView> {
    const term = this.#term;
    const slug = input.slug ?? slugFromName(input.name);
    if (slug === undefined)
      throw invalidRequest({ reason: 'no slug can be made from this name; send one', name: input.name });
    return withConstraintErrors(
      () =>
        this.write(actor, async (w) => {
          // The public store pages are cached: every instance drops them once this commits.
          w.invalidate(PUBLIC_STORE_TOPIC);
          const id = await insertTerm(w.trx, term, { name: input.name, slug });
          await w.auditRow(termPicture, {
            action: `store.${term.noun}.create`,
            targetType: `store_${term.noun}`,
            targetId: String(id),
            after: { ...input, slug },
          });
          return this.#viewOrThrow(w.trx, id);
        }),
      takenValue(term, { name: input.name, slug }),
    );
  }

  update(actor: Actor, id: number, input: UpdateTermInput): Promise<TermView> {
    const term = this.#term;
    return withConstraintErrors(
      () =>
        this.write(actor, async (w) => {
          // The public store pages are cached: every instance drops them once this commits.
          w.invalidate(PUBLIC_STORE_TOPIC);
          const current = await lockTerm(w.trx, term, id);
          if (current === undefined) throw notFound();
          const { before, after, changed } = termPicture.changes(current, input);
          if (changed.length === 0) return this.#viewOrThrow(w.trx, id);
          await updateTerm(w.trx, term, id, after as UpdateTermInput);
          await w.audit({
            action: `store.${term.noun}.update`,
            targetType: `store_${term.noun}`,
            targetId: String(id),
            before,
            after,
          });
          return this.#viewOrThrow(w.trx, id);
        }),
      takenValue(term, input),
    );
  }

  /** Games linked to it lose the link (counted in the audit row); the games stay. */
  async delete(actor: Actor, id: number): Promise<void> {
    const term = this.#term;
    await this.write(actor, async (w) => {
      // The public store pages are cached: every instance drops them once this commits.
      w.invalidate(PUBLIC_STORE_TOPIC);
      const current = await lockTerm(w.trx, term, id);
      if (current === undefined) throw notFound();
      const unlinked = await deleteTerm(w.trx, term, id);
      await w.auditRow(termPicture, {
        action: `store.${term.noun}.delete`,
        targetType: `store_${term.noun}`,
        targetId: String(id),
        before: current,
        extra: { unlinked_games: unlinked },
      });
    });
  }

  async #viewOrThrow(db: Kysely<Tables>, id: number): Promise<TermView> {
    const view = await findTerm(db, this.#term, id);
    if (view === undefined) throw notFound();
    return view;
  }
}
