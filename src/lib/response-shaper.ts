import { z } from 'zod';
import { isoText } from './iso-text.js';
import { type AnySchema, describeSchema, type SchemaNode, type ZodCheck } from './zod-introspection.js';

/**
 * A response schema compiled into one plain function that checks a value and shapes it the way
 * zod's `parse` would (shape keys in shape order, undocumented keys dropped, dates as their ISO
 * text), so `JSON.stringify` of its result is byte for byte the JSON of zod's result.
 *
 * Why: zod's `safeParse` builds a payload and an issue list for every field of every row: over an
 * 11 KB page of users, most of a serializer's cost. zod 4's parse is about three times faster than
 * zod 3's; the shaper still takes half its time on a page of users (a page of 20: 78 → 50 µs,
 * `npx tsx bench/tools/serializer-cost.ts`; docs/decisions/0076-zod-4.md).
 * The response schemas use a small part of zod (objects, arrays, records, primitives, enums,
 * nullable and optional, a few checks); those are compiled here. Anything else is left to zod
 * itself, for that part of the value only.
 *
 * A shaper only ever says "same as zod" or "not sure": when it refuses a value, the caller asks
 * zod, which either refuses it too (with zod's own issues) or shapes it. So a gap here can cost
 * speed, never correctness. The converse (accepting what zod refuses) is what the tests look for:
 * `test/lib/response-shaper.test.ts` compares both on generated values, and every test app
 * runs each answer through both (`verifyResponseShaping`). What a schema is comes from
 * zod-introspection.ts, the one place that reads zod's definitions.
 */
export type Shaper = (value: unknown) => unknown;

/** What a shaper returns for a value zod might refuse; never a value of any response. */
export const NOT_SHAPED: unique symbol = Symbol('not shaped');

/** zod's test for an object (`util.isObject`): anything but null and arrays, dates and maps included. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * zod's test for a record (`util.isPlainObject`): an object whose constructor is Object's (or one
 * with no constructor, or a non-function one), not a class instance nor a boxed primitive.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const maker = value.constructor;
  if (maker === undefined || typeof maker !== 'function') return true;
  const prototype: unknown = maker.prototype;
  return isObject(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

/** Whether an enumerable own symbol key is on `value`: a record of string keys refuses it. */
function hasEnumerableSymbol(value: object): boolean {
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, symbol)) return true;
  }
  return false;
}

/** Leaves the value to zod: its result if it accepts, else NOT_SHAPED. */
function byZod(schema: AnySchema): Shaper {
  return (value) => {
    const result = z.safeParse(schema, value);
    return result.success ? result.data : NOT_SHAPED;
  };
}

/** zod's `number_format` checks compiled here: `.int()` (a safe integer) and float64 (any finite number). */
const NUMBER_FORMATS: Record<string, (value: number) => boolean> = {
  safeint: Number.isSafeInteger,
  float64: () => true,
};

function numberShaper(schema: AnySchema, checks: readonly ZodCheck[]): Shaper {
  const tests: ((value: number) => boolean)[] = [];
  for (const check of checks) {
    const bound = check.value;
    const format = check.kind === 'number_format' ? NUMBER_FORMATS[check.format ?? ''] : undefined;
    if (format !== undefined) tests.push(format);
    else if (check.kind === 'greater_than' && typeof bound === 'number')
      tests.push(check.inclusive ? (value) => value >= bound : (value) => value > bound);
    else if (check.kind === 'less_than' && typeof bound === 'number')
      tests.push(check.inclusive ? (value) => value <= bound : (value) => value < bound);
    else return byZod(schema);
  }
  return (value) => {
    // zod 4's numbers are finite: NaN and the infinities are refused by `z.number()` itself.
    if (typeof value !== 'number' || !Number.isFinite(value)) return NOT_SHAPED;
    for (const test of tests) if (!test(value)) return NOT_SHAPED;
    return value;
  };
}

/** String formats that are zod's pattern and nothing more (`z.guid()`, `z.uuid()`), tested with zod's own pattern. */
const PATTERN_FORMATS = new Set(['guid', 'uuid']);

function stringShaper(schema: AnySchema, checks: readonly ZodCheck[]): Shaper {
  if (checks.length === 0) return (value) => (typeof value === 'string' ? value : NOT_SHAPED);
  const patterns: RegExp[] = [];
  for (const check of checks) {
    const isPatternFormat = check.kind === 'string_format' && PATTERN_FORMATS.has(check.format ?? '');
    if (!isPatternFormat || !(check.pattern instanceof RegExp) || check.pattern.global || check.pattern.sticky)
      return byZod(schema);
    patterns.push(check.pattern);
  }
  return (value) => {
    if (typeof value !== 'string') return NOT_SHAPED;
    for (const pattern of patterns) if (!pattern.test(value)) return NOT_SHAPED;
    return value;
  };
}

/** Whether zod lets an object leave this field's key out: `.optional()`, also under `.nullable()`. */
function mayBeAbsent(schema: AnySchema): boolean {
  const node = describeSchema(schema);
  if (node.kind === 'optional') return true;
  return node.kind === 'nullable' && mayBeAbsent(node.inner);
}

function objectShaper(schema: AnySchema, node: Extract<SchemaNode, { kind: 'object' }>): Shaper {
  const strict = node.unknownKeys === 'strict';
  if ((node.unknownKeys !== 'strip' && !strict) || node.hasCatchall) return byZod(schema);
  const { shape } = node;
  const known = new Set(Object.keys(shape));
  // zod never reads nor writes a "__proto__" field (writing it would set the prototype instead).
  const keys = Object.keys(shape).filter((key) => key !== '__proto__');
  const fields = keys.map((key) => shapeOf(shape[key]!));
  const optional = keys.map((key) => mayBeAbsent(shape[key]!));
  return (value) => {
    if (!isObject(value)) return NOT_SHAPED;
    const shaped: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const field = fields[index]!(value[key]);
      if (field === NOT_SHAPED) return NOT_SHAPED;
      if (field === undefined) {
        // zod refuses an absent key unless its schema allows absence, even where it takes undefined
        // (`z.unknown()`); a present key whose value is undefined it keeps, and JSON drops either way.
        if (!optional[index] && !(key in value)) return NOT_SHAPED;
      } else shaped[key] = field;
    }
    if (strict) {
      for (const key in value) if (!known.has(key)) return NOT_SHAPED;
    }
    return shaped;
  };
}

function arrayShaper(schema: AnySchema, node: Extract<SchemaNode, { kind: 'array' }>): Shaper {
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

function recordShaper(schema: AnySchema, node: Extract<SchemaNode, { kind: 'record' }>): Shaper {
  const key = describeSchema(node.key);
  if (key.kind !== 'string' || key.checks.length > 0) return byZod(schema);
  const item = shapeOf(node.value);
  return (value) => {
    // zod reads a record's own enumerable keys; a symbol among them is no string key: refused.
    if (!isPlainObject(value) || hasEnumerableSymbol(value)) return NOT_SHAPED;
    const shaped: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // zod neither checks nor copies a "__proto__" key (copying it would set the prototype).
      if (key === '__proto__') continue;
      const element = item(value[key]);
      if (element === NOT_SHAPED) return NOT_SHAPED;
      if (element !== undefined) shaped[key] = element;
    }
    return shaped;
  };
}

function enumShaper(options: readonly string[]): Shaper {
  const allowed = new Set(options);
  return (value) => (typeof value === 'string' && allowed.has(value) ? value : NOT_SHAPED);
}

/** The shaper of one schema; parts zod knows better are left to zod. */
export function shapeOf(schema: AnySchema): Shaper {
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
      // zod asks a Set, as here: the same equality (SameValueZero).
      const literals = new Set(node.values);
      return (value) => (literals.has(value) ? value : NOT_SHAPED);
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
      // An optional default (`.default(x).optional()`) gives x for undefined: zod alone knows which do.
      if (describeSchema(node.inner).kind === 'other') return byZod(schema);
      const inner = shapeOf(node.inner);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'other':
      return byZod(schema);
  }
}
