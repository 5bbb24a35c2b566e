import type { z } from 'zod';

/** Any zod 4 schema, classic (`z.string()`) or core. */
export type AnySchema = z.core.$ZodType;

/**
 * A check of a zod 4 schema, from its definition (`check._zod.def`): its kind (`string_format`,
 * `number_format`, `greater_than`, `less_than`, `min_length`, `custom`, `overwrite`…) and what the
 * kinds the shaper knows carry (a format's name and pattern, a bound's value and inclusiveness).
 */
export interface ZodCheck {
  readonly kind: string;
  readonly format?: string;
  readonly pattern?: RegExp;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}

/**
 * What a zod 4 schema is, as far as the response shaper needs to know (response-shaper.ts). Every
 * kind the app's response schemas use has a case; `other` is everything else (unions, transforms,
 * defaults, coerced primitives, refined objects…), which the shaper leaves to zod.
 */
export type SchemaNode =
  | {
      kind: 'object';
      shape: Readonly<Record<string, AnySchema>>;
      unknownKeys: 'strip' | 'strict' | 'passthrough';
      /** A schema for undocumented keys (`.catchall()`); they are dropped or refused without one. */
      hasCatchall: boolean;
    }
  | { kind: 'array'; element: AnySchema; lengthBounded: boolean }
  | { kind: 'record'; key: AnySchema; value: AnySchema }
  | { kind: 'string'; checks: readonly ZodCheck[] }
  | { kind: 'number'; checks: readonly ZodCheck[] }
  | { kind: 'boolean' }
  | { kind: 'date'; bounded: boolean }
  | { kind: 'enum'; options: readonly string[] }
  | { kind: 'literal'; values: readonly unknown[] }
  | { kind: 'null' }
  /** `z.unknown()` and `z.any()`: every value as it is. */
  | { kind: 'unknown' }
  | { kind: 'nullable'; inner: AnySchema }
  | { kind: 'optional'; inner: AnySchema }
  | { kind: 'other' };

/**
 * The fields of a definition read here. zod 4 publishes each schema's definition as
 * `schema._zod.def` (zod/v4/core, the surface it documents for libraries built on it): `type`
 * names the schema, `checks` its checks (refinements included), and each type adds its own parts.
 * A format schema (`z.guid()`, `z.int()`) is its own first check: its definition carries `check`.
 */
interface Definition {
  type: string;
  checks?: readonly { _zod: { def: CheckDefinition } }[];
  check?: string;
  coerce?: boolean;
  shape?: Record<PropertyKey, AnySchema>;
  catchall?: AnySchema;
  element?: AnySchema;
  keyType?: AnySchema;
  valueType?: AnySchema;
  mode?: string;
  partial?: boolean;
  innerType?: AnySchema;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
}

interface CheckDefinition {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
}

/**
 * The one place that reads a schema's definition. A field not where it is expected makes the
 * schema `other` (left to zod: slower, never wrong), and test/lib/zod-introspection.test.ts reads
 * each field back, so a zod release that moves one fails it.
 */
function definitionOf(schema: AnySchema): Definition {
  return schema._zod.def as unknown as Definition;
}

const OTHER: SchemaNode = { kind: 'other' };

function checksOf(definition: Definition): ZodCheck[] | undefined {
  const own = definition.checks ?? [];
  if (!Array.isArray(own)) return undefined;
  const all = definition.check === undefined ? [] : [definition as unknown as CheckDefinition];
  for (const check of own) {
    const checkDefinition = check?._zod?.def;
    if (typeof checkDefinition?.check !== 'string') return undefined;
    all.push(checkDefinition);
  }
  return all.map(({ check, format, pattern, value, inclusive }) => ({
    kind: check,
    ...(format === undefined ? {} : { format }),
    ...(pattern === undefined ? {} : { pattern }),
    ...(value === undefined ? {} : { value }),
    ...(inclusive === undefined ? {} : { inclusive }),
  }));
}

function objectNode({ shape, catchall }: Definition): SchemaNode {
  if (typeof shape !== 'object' || shape === null || Object.getOwnPropertySymbols(shape).length > 0) return OTHER;
  if (catchall === undefined) return { kind: 'object', shape, unknownKeys: 'strip', hasCatchall: false };
  const catchallType = definitionOf(catchall).type;
  if (catchallType === 'never') return { kind: 'object', shape, unknownKeys: 'strict', hasCatchall: false };
  // `.loose()` (zod 3's `.passthrough()`) is an unknown catchall: every undocumented key kept as it is.
  if (catchallType === 'unknown') return { kind: 'object', shape, unknownKeys: 'passthrough', hasCatchall: false };
  return { kind: 'object', shape, unknownKeys: 'strip', hasCatchall: true };
}

function enumNode({ entries }: Definition): SchemaNode {
  if (typeof entries !== 'object' || entries === null) return OTHER;
  const options = Object.values(entries);
  // A numeric (native TypeScript) enum's entries hold reverse mappings zod filters out: left to zod.
  return options.every((option) => typeof option === 'string') ? { kind: 'enum', options } : OTHER;
}

/** What `schema` is: its definition's `type`, and for the kinds the shaper compiles, their parts. */
export function describeSchema(schema: AnySchema): SchemaNode {
  const definition = definitionOf(schema);
  const checks = checksOf(definition);
  if (checks === undefined) return OTHER;
  // A coerced primitive turns other values into its type first: zod alone knows how.
  if (definition.coerce === true) return OTHER;
  switch (definition.type) {
    case 'string':
      return { kind: 'string', checks };
    case 'number':
      return { kind: 'number', checks };
    case 'array':
      if (definition.element === undefined) return OTHER;
      return { kind: 'array', element: definition.element, lengthBounded: checks.length > 0 };
    case 'date':
      // A date's only checks are its bounds.
      return { kind: 'date', bounded: checks.length > 0 };
    default:
      // Other kinds take no checks but refinements (`.refine()` on an object): zod runs those.
      if (checks.length > 0) return OTHER;
  }
  switch (definition.type) {
    case 'object':
      return objectNode(definition);
    case 'record': {
      const { keyType, valueType, mode, partial } = definition;
      if (keyType === undefined || valueType === undefined || (mode ?? 'strict') !== 'strict' || partial) return OTHER;
      return { kind: 'record', key: keyType, value: valueType };
    }
    case 'boolean':
      return { kind: 'boolean' };
    case 'enum':
      return enumNode(definition);
    case 'literal':
      return Array.isArray(definition.values) ? { kind: 'literal', values: definition.values } : OTHER;
    case 'null':
      return { kind: 'null' };
    case 'unknown':
    case 'any':
      return { kind: 'unknown' };
    case 'nullable':
      return definition.innerType === undefined ? OTHER : { kind: 'nullable', inner: definition.innerType };
    case 'optional':
      return definition.innerType === undefined ? OTHER : { kind: 'optional', inner: definition.innerType };
    default:
      return OTHER;
  }
}
