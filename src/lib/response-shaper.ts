import type { ZodTypeAny } from 'zod';
import { isoText } from './iso-text.js';
import { describeSchema, type SchemaNode, type ZodCheck } from './zod-introspection.js';

/**
 * A response schema compiled into one plain function that checks a value and shapes it the way
 * zod's `parse` would (shape keys in shape order, undocumented keys dropped, dates as their ISO
 * text), so `JSON.stringify` of its result is byte for byte the JSON of zod's result.
 *
 * Why: zod 3's `safeParse` builds a context, a status and an issue list for every field of every
 * row. Over an 11 KB page of users that was most of the serializer's cost, and the serializer was
 * 11 % of the service's busy time under load (bench/README.md). The response schemas use a small
 * part of zod (objects, arrays, records, primitives, enums, nullable and optional, a few checks);
 * those are compiled here. Anything else is left to zod itself, for that part of the value only.
 *
 * A shaper only ever says "same as zod" or "not sure": when it refuses a value, the caller asks
 * zod, which either refuses it too (with zod's own issues) or shapes it. So a gap here can cost
 * speed, never correctness. The converse (accepting what zod refuses) is what the tests look for:
 * `test/lib/response-shaper.test.ts` compares both on generated values, and every test app
 * runs each answer through both (`verifyResponseShaping`). What a schema is comes from
 * zod-introspection.ts, the one place that reads zod's internals.
 */
export type Shaper = (value: unknown) => unknown;

/** What a shaper returns for a value zod might refuse; never a value of any response. */
export const NOT_SHAPED: unique symbol = Symbol('not shaped');

// zod 3's own pattern for `.uuid()` (zod/v3/types.js), so both accept the same texts.
const UUID = /^[0-9a-fA-F]{8}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{12}$/i;

/** The part of zod's type tag (`getParsedType`) that decides "object": not an array, date, map, set or promise. */
function isRecordLike(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (value instanceof Date || value instanceof Map || value instanceof Set) return false;
  const { then, catch: onCatch } = value as { then?: unknown; catch?: unknown };
  return !(typeof then === 'function' && typeof onCatch === 'function');
}

/** Leaves the value to zod: its result if it accepts, else NOT_SHAPED. */
function byZod(schema: ZodTypeAny): Shaper {
  return (value) => {
    const result = schema.safeParse(value);
    return result.success ? result.data : NOT_SHAPED;
  };
}

function numberShaper(schema: ZodTypeAny, checks: readonly ZodCheck[]): Shaper {
  const tests: ((value: number) => boolean)[] = [];
  for (const check of checks) {
    const bound = check.value as number;
    if (check.kind === 'int') tests.push(Number.isInteger);
    else if (check.kind === 'min') tests.push(check.inclusive ? (value) => value >= bound : (value) => value > bound);
    else if (check.kind === 'max') tests.push(check.inclusive ? (value) => value <= bound : (value) => value < bound);
    else if (check.kind === 'finite') tests.push(Number.isFinite);
    else return byZod(schema);
  }
  return (value) => {
    if (typeof value !== 'number' || Number.isNaN(value)) return NOT_SHAPED;
    for (const test of tests) if (!test(value)) return NOT_SHAPED;
    return value;
  };
}

function stringShaper(schema: ZodTypeAny, checks: readonly ZodCheck[]): Shaper {
  if (checks.length === 0) return (value) => (typeof value === 'string' ? value : NOT_SHAPED);
  if (checks.length === 1 && checks[0]!.kind === 'uuid') {
    return (value) => (typeof value === 'string' && UUID.test(value) ? value : NOT_SHAPED);
  }
  return byZod(schema);
}

function objectShaper(schema: ZodTypeAny, node: Extract<SchemaNode, { kind: 'object' }>): Shaper {
  const strict = node.unknownKeys === 'strict';
  if ((node.unknownKeys !== 'strip' && !strict) || node.hasCatchall) return byZod(schema);
  const { shape } = node;
  const keys = Object.keys(shape);
  const fields = keys.map((key) => shapeOf(shape[key]!));
  const known = new Set(keys);
  return (value) => {
    if (!isRecordLike(value)) return NOT_SHAPED;
    const shaped: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const field = fields[index]!(value[key]);
      if (field === NOT_SHAPED) return NOT_SHAPED;
      // zod keeps a key whose value is undefined; JSON drops it either way.
      if (field !== undefined) shaped[key] = field;
    }
    if (strict) {
      for (const key in value) if (!known.has(key)) return NOT_SHAPED;
    }
    return shaped;
  };
}

function arrayShaper(schema: ZodTypeAny, node: Extract<SchemaNode, { kind: 'array' }>): Shaper {
  if (node.lengthBounded) return byZod(schema);
  const item = shapeOf(node.element);
  return (value) => {
    if (!Array.isArray(value)) return NOT_SHAPED;
    const shaped = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) {
      const element = item(value[index]);
      if (element === NOT_SHAPED) return NOT_SHAPED;
      shaped[index] = element;
    }
    return shaped;
  };
}

function recordShaper(schema: ZodTypeAny, node: Extract<SchemaNode, { kind: 'record' }>): Shaper {
  const key = describeSchema(node.key);
  if (key.kind !== 'string' || key.checks.length > 0) return byZod(schema);
  const item = shapeOf(node.value);
  return (value) => {
    if (!isRecordLike(value)) return NOT_SHAPED;
    const shaped: Record<string, unknown> = {};
    for (const key in value) {
      const element = item(value[key]);
      if (element === NOT_SHAPED) return NOT_SHAPED;
      // zod never copies a "__proto__" key (it would set the prototype instead).
      if (element !== undefined && key !== '__proto__') shaped[key] = element;
    }
    return shaped;
  };
}

function enumShaper(options: readonly string[]): Shaper {
  const allowed = new Set(options);
  return (value) => (typeof value === 'string' && allowed.has(value) ? value : NOT_SHAPED);
}

/** The shaper of one schema; parts zod knows better are left to zod. */
export function shapeOf(schema: ZodTypeAny): Shaper {
  const node = describeSchema(schema);
  switch (node.kind) {
    case 'object':
      return objectShaper(schema, node);
    case 'array':
      return arrayShaper(schema, node);
    case 'record':
      return recordShaper(schema, node);
    case 'string':
      return stringShaper(schema, node.checks);
    case 'number':
      return numberShaper(schema, node.checks);
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : NOT_SHAPED);
    case 'date':
      if (node.bounded) return byZod(schema);
      // JSON writes a valid date as its ISO text; zod refuses an invalid one.
      return (value) => (value instanceof Date && !Number.isNaN(value.getTime()) ? isoText(value) : NOT_SHAPED);
    case 'enum':
      return enumShaper(node.options);
    case 'literal': {
      const literal = node.value;
      return (value) => (value === literal ? value : NOT_SHAPED);
    }
    case 'null':
      return (value) => (value === null ? null : NOT_SHAPED);
    case 'unknown':
      return (value) => value;
    case 'nullable': {
      const inner = shapeOf(node.inner);
      return (value) => (value === null ? null : inner(value));
    }
    case 'optional': {
      const inner = shapeOf(node.inner);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'other':
      return byZod(schema);
  }
}
