import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeSchema, type SchemaNode } from '../../src/lib/zod-introspection.js';

const item = z.string();
const guidCheck = { kind: 'string_format', format: 'guid', pattern: z.regexes.guid };
const safeInt = { kind: 'number_format', format: 'safeint' };

/**
 * Every zod type the app's response schemas use (objects stripped and strict, unbounded arrays,
 * records with string keys, strings plain and with a guid or datetime check, numbers plain and with
 * int and min checks, booleans, dates, enums, literals, null, unknown, nullable, optional, a union),
 * and the variants the shaper must tell apart from them. The definition fields of zod 4 read by
 * describeSchema are each read back here: a zod release that moves one fails this test.
 */
const cases: Array<[name: string, schema: z.ZodType, node: SchemaNode]> = [
  [
    'an object',
    z.object({ a: item }),
    { kind: 'object', shape: { a: item }, unknownKeys: 'strip', hasCatchall: false },
  ],
  ['a strict object', z.strictObject({}), { kind: 'object', shape: {}, unknownKeys: 'strict', hasCatchall: false }],
  ['a loose object', z.looseObject({}), { kind: 'object', shape: {}, unknownKeys: 'passthrough', hasCatchall: false }],
  [
    'an object with a catchall',
    z.object({}).catchall(z.number()),
    { kind: 'object', shape: {}, unknownKeys: 'strip', hasCatchall: true },
  ],
  ['a refined object', z.object({ a: item }).refine((value) => value.a !== ''), { kind: 'other' }],
  ['an array', z.array(item), { kind: 'array', element: item, lengthBounded: false }],
  ['an array with a minimum length', z.array(item).min(1), { kind: 'array', element: item, lengthBounded: true }],
  ['an array with a maximum length', z.array(item).max(3), { kind: 'array', element: item, lengthBounded: true }],
  ['an array of an exact length', z.array(item).length(2), { kind: 'array', element: item, lengthBounded: true }],
  ['a record', z.record(z.string(), item), { kind: 'record', key: expect.any(z.ZodString), value: item }],
  [
    'a record with its key schema',
    z.record(z.guid(), item),
    { kind: 'record', key: expect.any(z.ZodGUID), value: item },
  ],
  ['a loose record', z.looseRecord(z.string(), item), { kind: 'other' }],
  ['a partial record', z.partialRecord(z.enum(['a']), item), { kind: 'other' }],
  ['a string', z.string(), { kind: 'string', checks: [] }],
  ['a guid', z.guid(), { kind: 'string', checks: [guidCheck] }],
  ['a string checked as a guid', z.string().check(z.guid()), { kind: 'string', checks: [guidCheck] }],
  [
    'a date-time string',
    z.iso.datetime(),
    { kind: 'string', checks: [expect.objectContaining({ kind: 'string_format', format: 'datetime' })] },
  ],
  [
    'a bounded string',
    z.string().max(3),
    { kind: 'string', checks: [expect.objectContaining({ kind: 'max_length' })] },
  ],
  ['a number', z.number(), { kind: 'number', checks: [] }],
  ['an integer', z.number().int(), { kind: 'number', checks: [safeInt] }],
  ['an integer schema', z.int(), { kind: 'number', checks: [safeInt] }],
  [
    'an integer with an inclusive lower bound',
    z.number().int().min(0),
    { kind: 'number', checks: [safeInt, { kind: 'greater_than', value: 0, inclusive: true }] },
  ],
  [
    'an exclusive lower bound',
    z.number().gt(0),
    { kind: 'number', checks: [{ kind: 'greater_than', value: 0, inclusive: false }] },
  ],
  [
    'an exclusive upper bound',
    z.number().lt(9),
    { kind: 'number', checks: [{ kind: 'less_than', value: 9, inclusive: false }] },
  ],
  ['a multiple', z.number().multipleOf(5), { kind: 'number', checks: [{ kind: 'multiple_of', value: 5 }] }],
  ['a boolean', z.boolean(), { kind: 'boolean' }],
  ['a date', z.date(), { kind: 'date', bounded: false }],
  ['a date with a lower bound', z.date().min(new Date(0)), { kind: 'date', bounded: true }],
  ['an enum', z.enum(['a', 'b']), { kind: 'enum', options: ['a', 'b'] }],
  ['a numeric enum', z.enum({ a: 1, b: 2 }), { kind: 'other' }],
  ['a literal', z.literal('ok'), { kind: 'literal', values: ['ok'] }],
  ['literals', z.literal(['ok', 1]), { kind: 'literal', values: ['ok', 1] }],
  ['null', z.null(), { kind: 'null' }],
  ['unknown', z.unknown(), { kind: 'unknown' }],
  ['any', z.any(), { kind: 'unknown' }],
  ['a nullable', item.nullable(), { kind: 'nullable', inner: item }],
  ['an optional', item.optional(), { kind: 'optional', inner: item }],
  ['a union', z.union([z.string(), z.number()]), { kind: 'other' }],
  ['a transform', z.string().transform((text) => text.length), { kind: 'other' }],
  ['a default', item.default('x'), { kind: 'other' }],
  ['a refined string', z.string().refine((text) => text !== ''), { kind: 'string', checks: [{ kind: 'custom' }] }],
  ['a trimmed string', z.string().trim(), { kind: 'string', checks: [{ kind: 'overwrite' }] }],
  ['a coerced number', z.coerce.number(), { kind: 'other' }],
  ['a coerced string', z.coerce.string(), { kind: 'other' }],
  ['a coerced boolean', z.coerce.boolean(), { kind: 'other' }],
  ['a coerced date', z.coerce.date(), { kind: 'other' }],
];

describe('describeSchema', () => {
  it.each(cases)('%s', (_name, schema, node) => {
    expect(describeSchema(schema)).toEqual(node);
  });

  it("hands back the schema's own parts, not copies", () => {
    const shape = { a: item };
    const node = describeSchema(z.object(shape));
    expect(node.kind === 'object' && node.shape.a).toBe(item);
    const nullable = describeSchema(item.nullable());
    expect(nullable.kind === 'nullable' && nullable.inner).toBe(item);
  });
});
