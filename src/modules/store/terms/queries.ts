import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { ListTermsQuery, TermView } from './schemas.js';
import type { TermConfig } from '../term-kinds.js';

type Db = Kysely<Tables>;

/**
 * The three term tables have the same columns, so one of their names stands in for the type
 * while the SQL names the real table.
 */
function termTable(term: TermConfig) {
  return term.table as 'store_genres';
}

function gameCountOf(term: TermConfig) {
  return sql<number>`(SELECT count(*)::int FROM ${sql.table(term.link)} WHERE ${sql.ref(term.linkColumn)} =
    ${sql.ref(`${term.table}.id`)})`;
}

function termViews(db: Db, term: TermConfig) {
  return db
    .selectFrom(termTable(term))
    .select(['id', 'name', 'slug', 'created_at', 'updated_at'])
    .select(gameCountOf(term).as('game_count'));
}

export async function listTerms(
  db: Db,
  term: TermConfig,
  query: ListTermsQuery,
): Promise<{ rows: TermView[]; total: number }> {
  let filtered = db.selectFrom(termTable(term));
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('slug', 'ilike', pattern)]));
  }
  return readPage(filtered, query, (matching) =>
    termViews(db, term)
      .where('id', 'in', matching.select('id'))
      .orderBy(query.sort.field, query.sort.direction)
      .orderBy('id', query.sort.direction),
  );
}

export function findTerm(db: Db, term: TermConfig, id: number): Promise<TermView | undefined> {
  return termViews(db, term).where('id', '=', id).executeTakeFirst();
}

export function lockTerm(trx: Db, term: TermConfig, id: number) {
  return trx.selectFrom(termTable(term)).selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function insertTerm(trx: Db, term: TermConfig, values: { name: string; slug: string }): Promise<number> {
  const row = await trx.insertInto(termTable(term)).values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateTerm(
  trx: Db,
  term: TermConfig,
  id: number,
  changes: { name?: string; slug?: string },
): Promise<void> {
  await trx
    .updateTable(termTable(term))
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** Deletes the term (its links go with it) and answers how many games it was linked to. */
export async function deleteTerm(trx: Db, term: TermConfig, id: number): Promise<number> {
  const linked = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM ${sql.table(term.link)} WHERE ${sql.ref(term.linkColumn)} = ${id}`.execute(trx);
  await trx.deleteFrom(termTable(term)).where('id', '=', id).execute();
  return linked.rows[0]?.n ?? 0;
}
