import { sql, type SelectQueryBuilder } from 'kysely';
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

export const pageMeta = z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() });

export function pagedResponse<T extends z.ZodTypeAny>(item: T) {
  return z.object({ data: z.array(item), meta: pageMeta });
}

export function offsetOf({ page, per_page }: PageRequest): number {
  return (page - 1) * per_page;
}

export function paged<T>(data: T[], request: PageRequest, total: number) {
  return { data, meta: { page: request.page, per_page: request.per_page, total } };
}

/** Escape `%`, `_` and `\` so a free-text `q` matches literally inside ILIKE. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The total of a paged list: the same filtered query, counted. */
export async function countRows<DB, TB extends keyof DB, O>(filtered: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  const row = await filtered.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
  return (row as unknown as { n: number }).n;
}
