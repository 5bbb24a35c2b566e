import fc from 'fast-check';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createResponseSerializerCompiler } from '../../src/lib/response-serializer.js';
import { NOT_SHAPED, shapeOf } from '../../src/lib/response-shaper.js';

/** JSON text, or what JSON.stringify threw (a BigInt under `unknown` throws for both). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    return `threw ${String(error)}`;
  }
}

/** The shaper's promise: it refuses exactly what zod refuses, and otherwise writes zod's JSON. */
function expectSameAsZod(schema: z.ZodType, value: unknown) {
  const shaped = shapeOf(schema)(value);
  const result = schema.safeParse(value);
  if (result.success) {
    expect(shaped).not.toBe(NOT_SHAPED);
    expect(jsonOf(shaped)).toBe(jsonOf(result.data));
  } else {
    expect(shaped).toBe(NOT_SHAPED);
  }
}

// Values of every kind, including the ones zod tells apart from an object.
const anyValue = fc.anything({
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withSparseArray: true,
  withBoxedValues: true,
  withBigInt: true,
  withObjectString: true,
});
const validDate = fc.date({ min: new Date(-1e14), max: new Date(1e14), noInvalidDate: true });
const someDate = fc.oneof(validDate, fc.constant(new Date(Number.NaN)));

/** A value of the arbitrary's shape, or, now and then, anything at all in its place. */
function mostly<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 8, arbitrary }, { weight: 1, arbitrary: anyValue });
}

/** The fields an arbitrary record has, plus undocumented ones the shaper must drop. */
function withExtras(record: fc.Arbitrary<Record<string, unknown>>) {
  return fc
    .tuple(record, fc.dictionary(fc.string(), anyValue, { maxKeys: 3 }))
    .map(([fields, extras]) => ({ ...extras, ...fields }));
}

const player = z.object({
  id: z.guid(),
  email: z.string().nullable(),
  status: z.enum(['active', 'banned', 'deleted']),
  roles: z.array(z.string()),
  credits: z.number().int().min(0),
  verified: z.boolean(),
  kind: z.literal('player'),
  removed: z.null(),
  created_at: z.date(),
  last_seen_at: z.date().nullable(),
  note: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  extra: z.unknown(),
  tier: z.object({ key: z.string(), rank: z.number().int() }).nullable(),
});
const playerValue = withExtras(
  fc.record(
    {
      id: mostly(fc.uuid()),
      email: mostly(fc.option(fc.emailAddress(), { nil: null })),
      status: mostly(fc.constantFrom('active', 'banned', 'deleted', 'gone')),
      roles: mostly(fc.array(mostly(fc.string()), { maxLength: 4 })),
      credits: mostly(fc.oneof(fc.integer({ min: -3, max: 1e9 }), fc.double())),
      verified: mostly(fc.boolean()),
      kind: mostly(fc.constantFrom('player', 'staff')),
      removed: mostly(fc.constant(null)),
      created_at: mostly(someDate),
      last_seen_at: mostly(fc.option(someDate, { nil: null })),
      note: mostly(fc.option(fc.string(), { nil: undefined })),
      metadata: mostly(fc.dictionary(fc.string(), anyValue, { maxKeys: 4 })),
      extra: fc.option(anyValue, { nil: undefined }),
      tier: mostly(
        fc.option(withExtras(fc.record({ key: mostly(fc.string()), rank: mostly(fc.integer()) })), { nil: null }),
      ),
    },
    {
      requiredKeys: [
        'id',
        'email',
        'status',
        'roles',
        'credits',
        'verified',
        'kind',
        'removed',
        'created_at',
        'last_seen_at',
        'metadata',
        'tier',
      ],
    },
  ),
);

describe('shapeOf', () => {
  it('shapes a page of records as zod does, and refuses what zod refuses', () => {
    const page = z.object({
      data: z.array(player),
      meta: z.object({ page: z.number().int(), total: z.number().int() }).strict(),
    });
    const meta = fc.oneof(
      fc.record({ page: fc.integer(), total: fc.integer() }),
      withExtras(fc.record({ page: fc.integer(), total: fc.integer() })),
    );
    fc.assert(
      fc.property(fc.record({ data: fc.array(playerValue, { maxLength: 5 }), meta }), (value) =>
        expectSameAsZod(page, value),
      ),
      { numRuns: 3_000 },
    );
  });

  it('agrees with zod on values of any kind', () => {
    const schemas = [
      player,
      z.array(z.string()),
      z.record(z.string(), z.number()),
      z.date(),
      z.enum(['a', 'b']),
      z.number(),
      z.null(),
      z.unknown(),
      z.guid(),
      z.uuid(),
      z.object({ a: z.unknown(), b: z.unknown().optional() }),
    ];
    for (const schema of schemas) {
      fc.assert(
        fc.property(anyValue, (value) => expectSameAsZod(schema, value)),
        { numRuns: 500 },
      );
    }
  });

  it('skips a record\'s own "__proto__" key as zod does, whatever its value (fast-check found it)', () => {
    expectSameAsZod(z.record(z.string(), z.number()), JSON.parse('{"__proto__":{},"a":1}'));
    expectSameAsZod(z.record(z.string(), z.number()), JSON.parse('{"__proto__":{}}'));
  });

  it.each([
    ['an integer at its inclusive lower bound', z.number().int().min(0), 0, true],
    ['a number under an exclusive lower bound', z.number().gt(0), 0, false],
    ['a number at an inclusive upper bound', z.number().max(10), 10, true],
    ['a number over an exclusive upper bound', z.number().lt(10), 10, false],
    ['infinity where a number is due', z.number(), Infinity, false],
    ['an integer past the safe range', z.number().int(), 2 ** 53, false],
    ['NaN', z.number(), Number.NaN, false],
    ['a fraction where an integer is due', z.number().int(), 1.5, false],
    ['an upper-case uuid', z.guid(), 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', true],
    ['a uuid without its dashes', z.guid(), 'a0eebc999c0b4ef8bb6d6bb9bd380a11', false],
    ['the nil uuid as a guid', z.guid(), '00000000-0000-0000-0000-000000000000', true],
    ['a guid of no RFC 9562 variant where a uuid is due', z.uuid(), '00000000-0000-0000-0000-000000000001', false],
    ['an invalid date', z.date(), new Date(Number.NaN), false],
    ['a date where text is due', z.string(), new Date(0), false],
    ['a Map where an object is due (zod 4 takes any non-array object)', z.object({}), new Map(), true],
    ['a Date where an object is due', z.object({}), new Date(0), true],
    ['an array where an object is due', z.object({}), [], false],
    [
      'an object with a then and a catch',
      z.object({}),
      // biome-ignore lint/suspicious/noThenProperty: the case is exactly a value that looks like a promise
      { then: () => 1, catch: () => 1 },
      true,
    ],
    ['an array where a record is due', z.record(z.string(), z.string()), ['a'], false],
    ['a class instance where a record is due', z.record(z.string(), z.number()), new (class Counts {})(), false],
    ['a boxed string where a record is due', z.record(z.string(), z.string()), new String('ab'), false],
    ['a symbol key of a record', z.record(z.string(), z.number()), { a: 1, [Symbol('s')]: 2 }, false],
    ['a null-prototype record', z.record(z.string(), z.number()), Object.assign(Object.create(null), { a: 1 }), true],
    ['an inherited key of a record', z.record(z.string(), z.string()), Object.create({ a: 1 }), true],
    ['an undocumented key of a strict object', z.object({ a: z.string() }).strict(), { a: 'x', b: 1 }, false],
    ['a "__proto__" key of a record', z.record(z.string(), z.number()), JSON.parse('{"__proto__": 1, "a": 2}'), true],
    ['a missing optional key', z.object({ a: z.string().optional() }), {}, true],
    ['a missing nullable key', z.object({ a: z.string().nullable() }), {}, false],
    ['a missing unknown key', z.object({ a: z.unknown() }), {}, false],
    ['an unknown key present as undefined', z.object({ a: z.unknown() }), { a: undefined }, true],
    ['a missing key of an optional default', z.object({ a: z.string().default('x').optional() }), {}, true],
    ['a missing key of a nullable optional', z.object({ a: z.string().optional().nullable() }), {}, true],
  ])('decides %s as zod does', (_name, schema, value, accepted) => {
    expect(schema.safeParse(value).success).toBe(accepted);
    expectSameAsZod(schema, value);
  });

  it.each([
    ['an email check', z.email(), ['a@example.test', 'not an email']],
    ['a multipleOf check', z.number().multipleOf(5), [10, 11]],
    ['a minimum array length', z.array(z.string()).min(1), [['a'], []]],
    ['a transform', z.string().transform((text) => text.length), ['abc', 1]],
    ['a default', z.object({ a: z.string().default('none') }), [{}, { a: 1 }]],
    ['a union', z.union([z.string(), z.number()]), ['a', 1, true]],
    ['a loose object', z.looseObject({ a: z.string() }), [{ a: 'x', b: 2 }, { a: 1 }]],
    ['a refined object', z.object({ a: z.string() }).refine((value) => value.a !== 'x'), [{ a: 'x' }, { a: 'y' }]],
    ['a trimmed string', z.string().trim(), [' a ', 1]],
    ['a loose record', z.looseRecord(z.string().max(1), z.number()), [{ a: 1, bb: 'x' }]],
    ['a date with a lower bound', z.date().min(new Date(0)), [new Date(1), new Date(-1)]],
    ['a coerced number', z.coerce.number(), ['12', 'x']],
  ])('leaves %s to zod', (_name, schema, values) => {
    for (const value of values) expectSameAsZod(schema, value);
  });

  it("drops undocumented keys and writes dates as ISO text, in the schema's key order", () => {
    const schema = z.object({ b: z.date(), a: z.string() });
    const shaped = shapeOf(schema)({ a: 'x', secret: 'token', b: new Date('2026-11-25T04:00:00.000Z') });
    expect(JSON.stringify(shaped)).toBe('{"b":"2026-11-25T04:00:00.000Z","a":"x"}');
  });
});

describe('the response serializer', () => {
  const schema = z.object({ id: z.guid(), at: z.date() });
  const serialize = createResponseSerializerCompiler()({ schema, method: 'GET', url: '/things/:id' });

  it('writes the shaped value', () => {
    expect(serialize({ id: '7f1c6b6e-3c1a-4b8e-9a34-6a1f2f5d9e01', at: new Date(0), token: 'secret' })).toBe(
      '{"id":"7f1c6b6e-3c1a-4b8e-9a34-6a1f2f5d9e01","at":"1970-01-01T00:00:00.000Z"}',
    );
  });

  it("refuses a value zod refuses with fastify-type-provider-zod's error, zod's issues as its cause", () => {
    const failure = (() => {
      try {
        serialize({ id: 'not-a-uuid', at: new Date(0) });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(ResponseSerializationError);
    expect(failure).toMatchObject({ method: 'GET', url: '/things/:id' });
    expect((failure as ResponseSerializationError).cause.issues[0]).toMatchObject({
      path: ['id'],
      code: 'invalid_format',
      format: 'guid',
    });
  });

  it('takes the schema from a { properties } wrapper too', () => {
    const wrapped = createResponseSerializerCompiler()({ schema: { properties: schema }, method: 'GET', url: '/x' });
    expect(wrapped({ id: '7f1c6b6e-3c1a-4b8e-9a34-6a1f2f5d9e01', at: new Date(0) })).toContain(
      '"at":"1970-01-01T00:00:00.000Z"',
    );
  });

  it('in verifying mode, answers as usual when the shaper and zod agree', () => {
    const verifying = createResponseSerializerCompiler({ verifyResponseShaping: true })({
      schema,
      method: 'GET',
      url: '/x',
    });
    const value = { id: '7f1c6b6e-3c1a-4b8e-9a34-6a1f2f5d9e01', at: new Date(0), extra: 1 };
    expect(verifying(value)).toBe(serialize(value));
    expect(() => verifying({ id: 1, at: new Date(0) })).toThrow(ResponseSerializationError);
  });
});
