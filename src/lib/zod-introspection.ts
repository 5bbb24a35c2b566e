import { z, type ZodTypeAny } from 'zod';

/** A check of a zod 3 string or number: its kind (`uuid`, `int`, `min`…), a bound's value and inclusiveness. */
export interface ZodCheck {
  readonly kind: string;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}

/**
 * What a zod 3 schema is, as far as the response shaper needs to know (response-shaper.ts). Every
 * kind the app's response schemas use has a case; `other` is everything else (unions, transforms,
 * defaults, coerced primitives…), which the shaper leaves to zod.
 */
export type SchemaNode =
  | {
      kind: 'object';
      shape: Record<string, ZodTypeAny>;
      unknownKeys: 'strip' | 'strict' | 'passthrough';
      /** A schema for undocumented keys (`.catchall()`); they are dropped or refused without one. */
      hasCatchall: boolean;
    }
  | { kind: 'array'; element: ZodTypeAny; lengthBounded: boolean }
  | { kind: 'record'; key: ZodTypeAny; value: ZodTypeAny }
  | { kind: 'string'; checks: readonly ZodCheck[] }
  | { kind: 'number'; checks: readonly ZodCheck[] }
  | { kind: 'boolean' }
  | { kind: 'date'; bounded: boolean }
  | { kind: 'enum'; options: readonly string[] }
  | { kind: 'literal'; value: unknown }
  | { kind: 'null' }
  /** `z.unknown()` and `z.any()`: every value as it is. */
  | { kind: 'unknown' }
  | { kind: 'nullable'; inner: ZodTypeAny }
  | { kind: 'optional'; inner: ZodTypeAny }
  | { kind: 'other' };

/** The parts of a schema's definition that zod 3 gives no public accessor for. */
interface PrivateDefinition {
  checks: unknown;
  coerce: unknown;
  unknownKeys: unknown;
  catchall: unknown;
  minLength: unknown;
  maxLength: unknown;
  exactLength: unknown;
}

/**
 * zod 3's private `_def`, read here and nowhere else. Needed for what no public accessor tells: a
 * string's or number's full list of checks (the getters `isUUID`, `minValue`… miss `regex`,
 * `trim`, `multipleOf` and whether a bound is inclusive), an object's unknown-keys policy and
 * catchall, an array's length bounds, a primitive's `coerce`. A field not where it is expected
 * makes the schema `other` (left to zod: slower, never wrong), and test/lib/zod-introspection.test.ts
 * reads each field back, so a zod release that moves one fails it.
 */
function privateDefinition(schema: ZodTypeAny): PrivateDefinition {
  return schema._def as PrivateDefinition;
}

const OTHER: SchemaNode = { kind: 'other' };
const UNKNOWN_KEYS = new Set(['strip', 'strict', 'passthrough']);

function objectNode(schema: z.AnyZodObject): SchemaNode {
  const { unknownKeys, catchall } = privateDefinition(schema);
  if (typeof unknownKeys !== 'string' || !UNKNOWN_KEYS.has(unknownKeys) || !(catchall instanceof z.ZodType))
    return OTHER;
  return {
    kind: 'object',
    shape: schema.shape,
    unknownKeys: unknownKeys as 'strip' | 'strict' | 'passthrough',
    hasCatchall: !(catchall instanceof z.ZodNever),
  };
}

function arrayNode(schema: z.ZodArray<ZodTypeAny>): SchemaNode {
  const { minLength, maxLength, exactLength } = privateDefinition(schema);
  // zod writes null for an absent bound: anything else (a bound, or a field gone) counts as bounded.
  const lengthBounded = !(minLength === null && maxLength === null && exactLength === null);
  return { kind: 'array', element: schema.element, lengthBounded };
}

function checkedNode(kind: 'string' | 'number', schema: ZodTypeAny): SchemaNode {
  const { checks } = privateDefinition(schema);
  return Array.isArray(checks) ? { kind, checks } : OTHER;
}

/** What `schema` is, through zod's public accessors where it has them (`instanceof`, `.shape`, `.unwrap()`…). */
export function describeSchema(schema: ZodTypeAny): SchemaNode {
  if (schema instanceof z.ZodObject) return objectNode(schema);
  if (schema instanceof z.ZodArray) return arrayNode(schema);
  if (schema instanceof z.ZodRecord) return { kind: 'record', key: schema.keySchema, value: schema.valueSchema };
  if (schema instanceof z.ZodNullable) return { kind: 'nullable', inner: schema.unwrap() };
  if (schema instanceof z.ZodOptional) return { kind: 'optional', inner: schema.unwrap() };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', options: schema.options };
  if (schema instanceof z.ZodLiteral) return { kind: 'literal', value: schema.value };
  if (schema instanceof z.ZodNull) return { kind: 'null' };
  if (schema instanceof z.ZodUnknown || schema instanceof z.ZodAny) return { kind: 'unknown' };
  // A coerced primitive turns other values into its type first: zod alone knows how.
  if (privateDefinition(schema).coerce === true) return OTHER;
  if (schema instanceof z.ZodString) return checkedNode('string', schema);
  if (schema instanceof z.ZodNumber) return checkedNode('number', schema);
  if (schema instanceof z.ZodBoolean) return { kind: 'boolean' };
  // A date's only checks are its bounds, which zod 3 shows publicly.
  if (schema instanceof z.ZodDate) return { kind: 'date', bounded: schema.minDate !== null || schema.maxDate !== null };
  return OTHER;
}
