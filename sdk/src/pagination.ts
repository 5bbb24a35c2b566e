import type { FetchOptions } from 'openapi-fetch';
import type { PlatformClient } from './client.js';
import { unwrap } from './errors.js';
import type { paths } from './schema.js';

type GetOperation<Path extends keyof paths> = paths[Path] extends { get: infer Operation } ? Operation : never;
type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** The 200 body of a GET path. */
export type ListBody<Path extends keyof paths> =
  GetOperation<Path> extends { responses: { 200: infer Response } } ? JsonBody<Response> : never;

/** An item of a list body: an element of a bare array, or of `data`. */
export type ListItem<Body> = Body extends readonly (infer Item)[]
  ? Item
  : Body extends { data: readonly (infer Item)[] }
    ? Item
    : never;

/** Every GET path that answers a list. */
export type ListPath = {
  [Path in keyof paths]: [ListItem<ListBody<Path>>] extends [never] ? never : Path;
}[keyof paths];

export type ListInit<Path extends ListPath> = FetchOptions<GetOperation<Path>>;

/** The init argument: required when the path has parameters to fill (a key it cannot go without), optional otherwise. */
type ListInitArgument<Path extends ListPath> =
  Partial<ListInit<Path>> extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>];

type Query = Record<string, unknown>;

/** One page read: its items and the query of the next page, if there is one. */
interface Page {
  items: unknown[];
  next: Query | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The shapes the API's lists answer, and where each goes next:
 * - a bare array, or `{ data }` without paging meta: one page;
 * - `{ data, meta: { limit, next_cursor } }`: the next `cursor`, until it is null;
 * - `{ data, meta: { page, per_page, total? } }`: the next `page`;
 * - `{ data, meta: { limit, offset, total? } }`: the next `offset`.
 * A page shorter than its size, an empty page, or the total reached ends the list.
 */
function readPage(body: unknown, query: Query): Page {
  if (Array.isArray(body)) return { items: body, next: undefined };
  if (!isRecord(body) || !Array.isArray(body.data)) throw new TypeError('paginate: the answer is not a list');
  const items = body.data;
  const meta = isRecord(body.meta) ? body.meta : {};
  const total = isNumber(meta.total) ? meta.total : undefined;
  if ('next_cursor' in meta) {
    const cursor = meta.next_cursor;
    // A cursor given back unchanged would read the same page forever.
    const more = typeof cursor === 'string' && cursor !== '' && cursor !== query.cursor && items.length > 0;
    return { items, next: more ? { ...query, cursor } : undefined };
  }
  if (isNumber(meta.page) && isNumber(meta.per_page)) {
    const end = meta.page * meta.per_page;
    const more = items.length === meta.per_page && (total === undefined || end < total);
    return { items, next: more ? { ...query, page: meta.page + 1 } : undefined };
  }
  if (isNumber(meta.offset) && isNumber(meta.limit)) {
    const end = meta.offset + items.length;
    const more = items.length === meta.limit && items.length > 0 && (total === undefined || end < total);
    return { items, next: more ? { ...query, offset: end } : undefined };
  }
  return { items, next: undefined };
}

/**
 * Every item of a list, page after page, whatever its shape (offset pages, cursor pages,
 * limit/offset, bare arrays): `for await (const user of paginate(client, '/v1/admin/users', { params:
 * { query: { status: 'banned', per_page: 100 } } }))`. The query's filters and page size are kept;
 * a refused page throws `PlatformApiError`.
 */
export async function* paginate<Path extends ListPath>(
  client: PlatformClient,
  path: Path,
  ...[init]: ListInitArgument<Path>
): AsyncGenerator<ListItem<ListBody<Path>>, void, undefined> {
  const options = (init ?? {}) as { params?: { query?: Query } };
  let query: Query | undefined = { ...options.params?.query };
  while (query !== undefined) {
    const pageInit = { ...options, params: { ...options.params, query } };
    // The path and init are checked against the operation by the signature above.
    const body: unknown = await unwrap(client.GET(path as never, pageInit as never));
    const page = readPage(body, query);
    yield* page.items as ListItem<ListBody<Path>>[];
    query = page.next;
  }
}
