import type { ZodTypeAny } from 'zod';
import { isoText } from './iso-text.js';

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
 * runs each answer through both (`verifyResponseShaping`).
 */
export type Shaper = (value: unknown) => unknown;

/** What a shaper returns for a value zod might refuse; never a value of any response. */
export const NOT_SHAPED: unique symbol = Symbol('not shaped');

// zod 3's own pattern for `.uuid()` (zod/v3/types.js), so both accept the same texts.
const UUID = /^[0-9a-fA-F]{8}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{12}$/i;

interface Check {
  kind: string;
  value?: number;
  inclusive?: boolean;
}

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

function numberShaper(schema: ZodTypeAny, checks: Check[]): Shaper {
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

function stringShaper(schema: ZodTypeAny, checks: Check[]): Shaper {
  if (checks.length === 0) return (value) => (typeof value === 'string' ? value : NOT_SHAPED);
  if (checks.length === 1 && checks[0]!.kind === 'uuid') {
    return (value) => (typeof value === 'string' && UUID.test(value) ? value : NOT_SHAPED);
  }
  return byZod(schema);
}

function objectShaper(schema: ZodTypeAny): Shaper {
  const def = schema._def;
  const strict = def.unknownKeys === 'strict';
  if ((def.unknownKeys !== 'strip' && !strict) || def.catchall._def.typeName !== 'ZodNever') return byZod(schema);
  const shape = (schema as unknown as { shape: Record<string, ZodTypeAny> }).shape;
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

function arrayShaper(schema: ZodTypeAny): Shaper {
  const def = schema._def;
  if (def.minLength !== null || def.maxLength !== null || def.exactLength !== null) return byZod(schema);
  const item = shapeOf(def.type);
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

function recordShaper(schema: ZodTypeAny): Shaper {
  const def = schema._def;
  const keyDef = def.keyType._def;
  if (keyDef.typeName !== 'ZodString' || keyDef.checks.length > 0) return byZod(schema);
  const item = shapeOf(def.valueType);
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
  const def = schema._def;
  if (def.coerce === true) return byZod(schema);
  switch (def.typeName) {
    case 'ZodObject':
      return objectShaper(schema);
    case 'ZodArray':
      return arrayShaper(schema);
    case 'ZodRecord':
      return recordShaper(schema);
    case 'ZodString':
      return stringShaper(schema, def.checks);
    case 'ZodNumber':
      return numberShaper(schema, def.checks);
    case 'ZodBoolean':
      return (value) => (typeof value === 'boolean' ? value : NOT_SHAPED);
    case 'ZodDate':
      if (def.checks.length > 0) return byZod(schema);
      // JSON writes a valid date as its ISO text; zod refuses an invalid one.
      return (value) => (value instanceof Date && !Number.isNaN(value.getTime()) ? isoText(value) : NOT_SHAPED);
    case 'ZodEnum':
      return enumShaper(def.values);
    case 'ZodLiteral': {
      const literal = def.value;
      return (value) => (value === literal ? value : NOT_SHAPED);
    }
    case 'ZodNull':
      return (value) => (value === null ? null : NOT_SHAPED);
    case 'ZodUnknown':
    case 'ZodAny':
      return (value) => value;
    case 'ZodNullable': {
      const inner = shapeOf(def.innerType);
      return (value) => (value === null ? null : inner(value));
    }
    case 'ZodOptional': {
      const inner = shapeOf(def.innerType);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    default:
      return byZod(schema);
  }
}
