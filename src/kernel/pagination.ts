import { sql, type SelectQueryBuilder, type Simplify } from 'kysely';
import { preparedByShape } from '../db/prepared-shapes.js';
import { z } from 'zod';

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

export interface SortOrder<F extends string> {
  field: F;
  direction: 'asc' | 'desc';
}

/**
 * The query of a paged list: `page`, `per_page`, `q`, and `sort` as `field:asc|desc` checked
 * against the route's own allow-list (anything else is a 400 SchemaError).
 */
export function pageQuery<F extends string>(sortFields: readonly [F, ...F[]], defaultSort: SortOrder<F>) {
  const pattern = new RegExp(`^(${sortFields.join('|')}):(asc|desc)$`);
  return z.object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
    q: z.string().trim().min(1).max(200).optional(),
    sort: z
      .string()
      .regex(pattern, `sort must be one of ${sortFields.map((f) => `${f}:asc|${f}:desc`).join(', ')}`)
      .optional()
      .transform((value): SortOrder<F> => {
        if (value === undefined) return defaultSort;
        const [field, direction] = value.split(':') as [F, 'asc' | 'desc'];
        return { field, direction };
      }),
  });
}

export interface PageRequest {
  page: number;
  per_page: number;
}

export const pageMeta = z
  .object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() })
  // A named component of the OpenAPI document: every offset-paged list's `meta`.
  .meta({ id: 'PageMeta', description: 'Where this page sits: its number, its size, and how many rows match.' });

/**
 * The one list envelope, described by its items: `data`, and `meta` saying where the page sits.
 * A list with list-wide counts adds them to `meta` by passing `pageMeta.extend({ … })`.
 */
export function pagedResponse<T extends z.ZodType, M extends z.ZodType<z.infer<typeof pageMeta>> = typeof pageMeta>(
  item: T,
  meta: M = pageMeta as unknown as M,
) {
  return z.object({ data: z.array(item), meta }).describe(listDescription(item, '`meta` says where it sits.'));
}

function listDescription(item: z.ZodType, meta: string): string {
  const page = `One page of the list in \`data\`; ${meta}`;
  return item.description === undefined ? page : `${page} Each: ${lowerFirst(item.description)}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function offsetOf({ page, per_page }: PageRequest): number {
  return (page - 1) * per_page;
}

export function paged<T>(data: T[], request: PageRequest, total: number) {
  return { data, meta: { page: request.page, per_page: request.per_page, total } };
}

/**
 * `%`, `_` and `\` written with `\` before them, so they match themselves in LIKE and ILIKE
 * (whose escape character is `\` unless a query says otherwise; none here does). Every LIKE
 * pattern built from a caller's text goes through this.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A free-text `q` as a substring pattern for ILIKE, matched literally. */
export function likePattern(q: string): string {
  return `%${escapeLike(q)}%`;
}

/**
 * `q` on a paged list that has no text filter: refused (400) rather than ignored. Ignored, `q=%`
 * answered every row, and read as a wildcard match nobody had escaped.
 */
export const noTextFilter = z
  .never({ error: 'this list has no text filter: leave q out' })
  .optional()
  .describe('Not supported by this list: any value is refused.');

/**
 * The total of a paged list: the same filtered query, counted; prepared by its shape as
 * `<shape>_count` when the list names one (`readPage`'s `shape`).
 */
export async function countRows<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  shape?: string,
): Promise<number> {
  const counted = filtered.select(sql<number>`count(*)::int`.as('n'));
  const row = await (shape === undefined
    ? counted
    : counted.withPlugin(preparedByShape(`${shape}_count`))
  ).executeTakeFirstOrThrow();
  return (row as unknown as { n: number }).n;
}

/**
 * One page of a list and its total, read at once. `filtered` is what gets counted; `ordered`
 * turns it into the page's rows, columns and ORDER BY written by the list itself (each list
 * has its own tie-break and null order), built on `filtered` or on a query with the same filter.
 * This adds the page's LIMIT and OFFSET. A busy list names its `shape`: its page and its count
 * then run as prepared statements (`<shape>` and `<shape>_count`, src/db/prepared-shapes.ts).
 */
export async function readPage<DB, TB extends keyof DB, O, PageDB, PageTB extends keyof PageDB, Row>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  ordered: (filtered: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<PageDB, PageTB, Row>,
  shape?: string,
): Promise<{ rows: Simplify<Row>[]; total: number }> {
  const paged = ordered(filtered).limit(page.per_page).offset(offsetOf(page));
  const [rows, total] = await Promise.all([
    (shape === undefined ? paged : paged.withPlugin(preparedByShape(shape))).execute(),
    countRows(filtered, shape),
  ]);
  return { rows, total };
}

// Cursor pagination (the runtime session lists): `limit` and an opaque `cursor`, newest first,
// keyset on (created_at, id). Answers `{ data, meta: { limit, next_cursor } }`; no total.

/** Where a page ends: a row's created_at (UTC, to the microsecond) and id. */
export interface KeysetPosition {
  created_at: string;
  id: string;
}

const KEYSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const MAX_CURSOR_LENGTH = 200;

/** A real instant in the exact format `keysetTimestamp` writes (month 13 or Feb 30 is not). */
function isKeysetTimestamp(text: string): boolean {
  if (!KEYSET_TIMESTAMP.test(text)) return false;
  const millis = `${text.slice(0, 23)}Z`;
  const date = new Date(millis);
  return !Number.isNaN(date.getTime()) && date.toISOString() === millis;
}

const cursorPayload = z.object({ t: z.string().refine(isKeysetTimestamp), i: z.guid() }).strict();

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ t: position.created_at, i: position.id }), 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined for anything this service did not write. */
export function decodeCursor(cursor: string): KeysetPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = cursorPayload.safeParse(payload);
  return parsed.success ? { created_at: parsed.data.t, id: parsed.data.i } : undefined;
}

/**
 * `limit` (1..100, default 25) and `cursor`, decoded during validation: a malformed or
 * tampered cursor is a 400 SchemaError on `cursor`, never a database error. Extend it with
 * a route's filters.
 */
export const cursorPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
  cursor: z
    .string()
    .optional()
    .transform((value, ctx): KeysetPosition | undefined => {
      if (value === undefined) return undefined;
      const position = decodeCursor(value);
      if (position === undefined) ctx.addIssue({ code: 'custom', message: 'cursor is not one this list returned' });
      return position;
    })
    .describe('Opaque: the `meta.next_cursor` of the previous page.'),
});

export interface CursorPageRequest {
  limit: number;
  cursor?: KeysetPosition | undefined;
}

export const cursorMeta = z
  .object({
    limit: z.number().int(),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })
  .meta({ id: 'CursorPageMeta', description: 'A cursor-paged list: its page size and where the next page starts.' });

export function cursorPagedResponse<T extends z.ZodType>(item: T) {
  return z
    .object({ data: z.array(item), meta: cursorMeta })
    .describe(listDescription(item, '`meta.next_cursor` leads to the next page.'));
}

/** The created_at column as keyset text: a JS Date would drop its microseconds and skip rows. */
export function keysetTimestamp(column: string) {
  return sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** Rows after `position` in newest-first order (a row comparison the (…, created_at, id) indexes serve). */
export function olderThan(createdAtColumn: string, idColumn: string, position: KeysetPosition) {
  return sql<boolean>`(${sql.ref(createdAtColumn)}, ${sql.ref(idColumn)}) < (${position.created_at}::timestamptz,
    ${position.id}::uuid)`;
}

/**
 * One page from rows fetched with `limit + 1`: the extra row only says another page exists.
 * `positionOf` gives a row's keyset position (its `keysetTimestamp` text and id).
 */
export function cursorPaged<R, T>(
  rows: R[],
  limit: number,
  positionOf: (row: R) => KeysetPosition,
  view: (row: R) => T,
) {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next_cursor = rows.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null;
  return { data: page.map(view), meta: { limit, next_cursor } };
}
