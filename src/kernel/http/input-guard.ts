import type { z } from 'zod';

/**
 * How deep a request's JSON may nest. Far past any body this service documents (free-form
 * `metadata`, `vars` and drafts included) and far short of where serialising it (JSON.stringify
 * in refinements, services and the database driver) overflows the stack: 10,000 levels did.
 */
export const MAX_INPUT_DEPTH = 64;

/** A UTF-16 surrogate without its pair: not a character; JSON can carry one (`"\ud800"`). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, if it cannot. */
export function untextual(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (a lone surrogate)';
  return undefined;
}

/**
 * The first place in a request part (body, query, path, headers) holding what no route can take,
 * whatever its schema says, as a zod issue (the 400 SchemaError shows it like any other), or
 * undefined. `depth`: nesting deeper than MAX_INPUT_DEPTH (checked before the schema runs: its
 * refinements serialise values). `text`: text holding U+0000 (PostgreSQL's text and jsonb cannot
 * store it: the query failed, a 500) or a lone surrogate (jsonb refuses its escape, a 500; text
 * columns silently got U+FFFD), in a value or a key (checked on what the schema let through, so a
 * field the route ignores is ignored). Iterative: the walk itself cannot overflow.
 */
export function unstorableInput(
  data: unknown,
  check: { depth?: boolean; text?: boolean },
): z.core.$ZodIssue | undefined {
  const pending: Array<{ value: unknown; path: Array<string | number> }> = [{ value: data, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      const refused = check.text ? untextual(value) : undefined;
      if (refused !== undefined) return { code: 'custom', path, message: refused };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (check.depth && path.length >= MAX_INPUT_DEPTH)
      return { code: 'custom', path, message: `nested deeper than ${MAX_INPUT_DEPTH} levels` };
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1)
        pending.push({ value: value[index], path: [...path, index] });
      continue;
    }
    for (const [key, item] of Object.entries(value).reverse()) {
      const refused = check.text ? untextual(key) : undefined;
      if (refused !== undefined) return { code: 'custom', path: [...path, key], message: refused };
      pending.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}
