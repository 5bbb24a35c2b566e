import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import type { TestApp } from '../helpers/app.js';
import { SWITCH_METHODS, type JsonSchema, type Operation } from './route-table.js';

/**
 * Hostile inputs for `fuzz-operations.test.ts`, derived from an operation's own schemas in the
 * served OpenAPI document. Each request starts as one the schemas accept, its free text full of
 * SQL metacharacters and unicode oddities (so it reaches the handler and the database), and then
 * has at most one part made wrong: a path value (bad uuids, malformed escapes), a query parameter
 * (wrong type, past the documented bound, hostile, repeated, missing, unknown), a documented
 * header, or the body (a value invalid one level down, a required field missing, unknown fields,
 * null or not an object, random JSON, 10,000 levels of nesting, a 50,000-item array, malformed
 * JSON, another content type). Every case is a plain value (printable, replayable).
 */

export interface FuzzOperation extends Operation {
  /** The request body's media types, as documented. */
  contentTypes: string[];
  /** Documented answers by status: their description and media types. */
  responses: Record<string, { description: string; contentTypes: string[] }>;
}

/** Every operation of the served OpenAPI document, with what the fuzz needs beyond route-table's view. */
export async function fuzzOperations(t: TestApp): Promise<FuzzOperation[]> {
  const response = await t.request({ method: 'GET', url: '/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`/openapi.json answered ${response.statusCode}`);
  type Raw = {
    description?: string;
    parameters?: Operation['parameters'];
    requestBody?: { content: Record<string, { schema: JsonSchema }> };
    responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
  };
  const doc = response.json() as { paths: Record<string, Record<string, Raw>> };
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!SWITCH_METHODS.includes(method.toUpperCase())) continue;
      const content = op.requestBody?.content ?? {};
      operations.push({
        route: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        description: op.description ?? '',
        parameters: op.parameters ?? [],
        body: content['application/json']?.schema ?? Object.values(content)[0]?.schema,
        contentTypes: Object.keys(content),
        responses: Object.fromEntries(
          Object.entries(op.responses ?? {}).map(([status, answer]) => [
            status,
            { description: answer.description ?? '', contentTypes: Object.keys(answer.content ?? {}) },
          ]),
        ),
      });
    }
  }
  return operations;
}

export const DEEP_LEVELS = 10_000;
const HUGE_ARRAY_LENGTH = 50_000;

/** Strings that break naive SQL, LIKE patterns, sort clauses, parsers, normalisation and encodings. */
export const HOSTILE_STRINGS: readonly string[] = [
  "' OR 1=1 --",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "') OR ('1'='1",
  "1' AND SLEEP(5)#",
  '$1',
  ':name',
  '?',
  '%',
  '_',
  '%_%',
  '\\',
  '\\%',
  "\\'",
  '\\\\',
  '*',
  '[a-z]',
  '(?',
  '.*',
  '\u0000',
  'a\u0000b',
  '%00',
  '\u0001\u001f\u007f',
  '\uD800',
  'x\uDC00y',
  '\uDBFF\uDFFF',
  '\uDFFF\uD800',
  '\u202Eevil\u202C',
  '\u200F',
  '\u200E\u200B\u2060',
  '\uFEFF',
  'e\u0301',
  '\u0130',
  'ß',
  '\uFB03',
  '\uFF05\uFF3F',
  '👨‍👩‍👧‍👦',
  '\u{10FFFF}',
  '\uFFFE',
  '\r\n',
  '\t',
  ' ',
  '',
  '   ',
  'a\nb',
  '-1',
  '0',
  '-0',
  '1.5',
  '1e309',
  '9'.repeat(30),
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '0x10',
  ' 1',
  '1 ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as this literal text
  '${7*7}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '..',
  '.',
  '/',
  '//',
  'C:\\Windows',
  'javascript:alert(1)',
  'created_at:asc;DROP TABLE users',
  'created_at:ASC',
  'created_at:asc ',
  'email:desc,created_at:asc',
  'id:asc',
  'created_at',
  ':asc',
  'random()',
  'x'.repeat(10_001),
];

const hostilePiece = fc.constantFrom(...HOSTILE_STRINGS);
/** What breaks naive SQL and LIKE patterns, drawn more often than the rest. */
const SQL_STRINGS = HOSTILE_STRINGS.slice(0, HOSTILE_STRINGS.indexOf('[a-z]'));

/** A hostile string: a known one (SQL often), one wrapped in random text, or random code units (lone surrogates included). */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SQL_STRINGS) },
  { weight: 3, arbitrary: hostilePiece },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 6 }), hostilePiece, fc.string({ maxLength: 6 }))
      .map(([a, b, c]) => a + b + c),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
);

const BAD_UUIDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-00000000000g',
  '00000000000000000000000000000000',
  '{00000000-0000-4000-8000-000000000000}',
  '00000000-0000-4000-8000-0000000000001',
  ' 00000000-0000-4000-8000-000000000000',
  '00000000-0000-4000-8000-000000000000\u0000',
  '0',
  '-1',
  '1',
  '99999999999999999999',
  "' OR 1=1 --",
  'null',
  'undefined',
  '%',
  '\u0000',
  'x'.repeat(600),
];

/** A path segment: `raw` ones go into the URL as they are (malformed escapes); the others are percent-encoded. */
export interface PathValue {
  value: string;
  raw?: true;
}

const RAW_PATH_SEGMENTS = [
  '%',
  '%zz',
  '%00',
  '%C0%AE',
  '%ED%A0%80',
  '%FF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  'a;b=c',
  '%20',
];

export interface FuzzCase {
  /** What this case tries, for the report. */
  note: string;
  path: Record<string, PathValue>;
  /** Query pairs in order (a name repeated is an array to the server); `raw` values are not encoded. */
  query: Array<[string, string, boolean?]>;
  headers: Record<string, string>;
  body?:
    | { kind: 'json'; value: unknown; deep?: 'array' | 'object' }
    | { kind: 'text'; text: string; contentType: string; invalidJson?: true }
    | { kind: 'form'; value: Record<string, string> };
}

// ---------------------------------------------------------------------------------------------
// From a JSON schema: values it accepts, and values it refuses.

const typesOf = (schema: JsonSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
const branchesOf = (schema: JsonSchema) =>
  [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].filter((branch) => branch.not === undefined);
const withType = (schema: JsonSchema, type: string): JsonSchema => ({ ...schema, type });
type ArraySchema = JsonSchema & { minItems?: number; maxItems?: number; exclusiveMaximum?: number };

/** Fits a string into the schema's length bounds (clipping can split a surrogate pair: one more oddity). */
function fitted(schema: JsonSchema, value: string): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const clipped = value.length > max ? value.slice(0, max) : value;
  return clipped.length < min ? clipped + 'x'.repeat(min - clipped.length) : clipped;
}

const matching = new Map<string, fc.Arbitrary<string> | null>();
function matchingPattern(pattern: string): fc.Arbitrary<string> | null {
  if (!matching.has(pattern)) {
    try {
      const arbitrary = fc.stringMatching(new RegExp(pattern), { size: 'small' });
      fc.sample(arbitrary, { numRuns: 1, seed: 1 });
      matching.set(pattern, arbitrary);
    } catch {
      matching.set(pattern, null);
    }
  }
  return matching.get(pattern)!;
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'email':
      return fc.stringMatching(/^[a-z0-9._%+-]{1,12}@example\.test$/);
    case 'uri':
      return fc.oneof(
        fc.constant('https://example.test/'),
        fc.webUrl(),
        hostileString.map((text) => `https://example.test/${encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, ''))}`),
      );
  }
  if (schema.pattern !== undefined) {
    const arbitrary = matchingPattern(schema.pattern);
    // Hostile text in a patterned field is refused by the pattern: the mutations send that.
    if (arbitrary !== null) return arbitrary.map((value) => fitted(schema, value));
  }
  const min = schema.minLength ?? 0;
  const plain = fc.string({ minLength: min, maxLength: Math.min(schema.maxLength ?? min + 24, min + 24) });
  return fc.oneof(
    { weight: 1, arbitrary: plain },
    { weight: 2, arbitrary: hostileString.map((value) => fitted(schema, value)) },
  );
}

function bounds(schema: JsonSchema): { min: number; max: number } {
  const extra = schema as ArraySchema;
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000);
  const max =
    schema.maximum ??
    (extra.exclusiveMaximum !== undefined ? extra.exclusiveMaximum - 1 : Math.max(min, 0) + 1_000_000);
  return { min, max: Math.max(min, max) };
}

/** A value the schema accepts (strings often hostile but within bounds), `depth` limiting nesting. */
export function validValue(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const branches = branchesOf(schema);
  if (branches.length > 0) return fc.oneof(...branches.map((branch) => validValue(branch, depth + 1)));
  if (schema.allOf !== undefined && schema.allOf.length > 0) return validValue(schema.allOf[0], depth + 1);
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue(withType(schema, type), depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const { min, max } = bounds(schema);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'number': {
      const { min, max } = bounds(schema);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'string':
      return validString(schema);
    case 'array': {
      const extra = schema as ArraySchema;
      const minLength = extra.minItems ?? 0;
      return fc.array(validValue(schema.items, depth + 1), {
        minLength,
        maxLength: Math.min(extra.maxItems ?? minLength + 3, minLength + 3),
      });
    }
    case 'object':
      return validObject(schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validObject(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const declared = fc.record(Object.fromEntries(names.map((name) => [name, validValue(properties[name], depth + 1)])), {
    requiredKeys: (schema.required ?? []).filter((name) => names.includes(name)),
  });
  const open = schema.additionalProperties;
  if (names.length === 0 && open !== false) {
    // A free-form map (metadata, vars, limits, drafts): anything JSON, hostile keys included.
    const values = typeof open === 'object' ? validValue(open, depth + 1) : fc.jsonValue({ maxDepth: 2 });
    return fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), hostilePiece), values, { maxKeys: 4 });
  }
  return declared as fc.Arbitrary<Record<string, unknown>>;
}

function hugeArray(item: unknown): unknown[] {
  return new Array(HUGE_ARRAY_LENGTH).fill(item);
}

/** A value the schema refuses: wrong type, null, past a bound, bad format, or (objects, arrays) one level down. */
export function invalidValue(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const wrongTypes: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'x', [], [null], {}, { a: 1 }];
  const generic = fc.oneof(fc.constantFrom(...wrongTypes), hostileString, fc.jsonValue({ maxDepth: 2 }));
  if (schema === undefined) return generic;
  if (schema.enum !== undefined || schema.const !== undefined) {
    const first = String((schema.enum ?? [schema.const])[0]);
    return fc.oneof(
      fc.constantFrom('not-one-of-them', first.toUpperCase(), ` ${first}`, `${first}\u0000`, `${first}\u200B`),
      generic,
    );
  }
  const branches = branchesOf(schema);
  if (branches.length > 0)
    return fc.oneof(
      generic,
      ...branches
        .filter((branch) => typesOf(branch).includes('object'))
        .map((branch) => invalidValue(branch, depth + 1)),
    );
  const types = typesOf(schema);
  const options: Array<fc.Arbitrary<unknown>> = [generic];
  if (types.includes('string')) {
    const max = schema.maxLength;
    if (max !== undefined)
      options.push(
        fc.constantFrom(
          'x'.repeat(max + 1),
          '\u{1F600}'.repeat(Math.ceil((max + 1) / 2) + 1),
          'x'.repeat(max * 10 + 10),
        ),
      );
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant('x'.repeat(schema.minLength! - 1)));
    if (schema.format === 'uuid') options.push(fc.constantFrom(...BAD_UUIDS));
    if (schema.format === 'date-time' || schema.format === 'date')
      options.push(
        fc.constantFrom(
          '2030-02-30T25:61:61Z',
          '2030-13-01',
          '0000-00-00T00:00:00Z',
          '+275760-09-13T00:00:00Z',
          '2030-01-01T00:00:00+99:99',
          '1e10',
          'yesterday',
        ),
      );
    if (schema.format === 'email')
      options.push(
        fc.constantFrom(
          'no-at-sign',
          'a@',
          '@b',
          'a@b@c',
          `${'x'.repeat(300)}@example.test`,
          'a@exa mple.test',
          "x'--@example.test",
        ),
      );
    if (schema.format === 'uri')
      options.push(
        fc.constantFrom(
          'not a url',
          'javascript:alert(1)',
          '//evil.example',
          'http://',
          `https://example.test/${'x'.repeat(5000)}`,
        ),
      );
    options.push(fc.constantFrom(1, 0, false, [], {}));
  }
  if (types.includes('integer') || types.includes('number')) {
    const { min, max } = bounds(schema);
    options.push(fc.constantFrom(max + 1, min - 1, 2 ** 53 + 1, -(2 ** 53) - 1, 1e308, -1e308, '12', 'NaN'));
    if (types.includes('integer')) options.push(fc.constantFrom(1.5, min + 0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 63));
  }
  if (types.includes('boolean')) options.push(fc.constantFrom('true', 'false', 1, 0, 'yes'));
  if (types.includes('array')) {
    const extra = schema as ArraySchema;
    const item = validValue(schema.items, depth + 1);
    if (extra.maxItems !== undefined)
      options.push(fc.array(item, { minLength: extra.maxItems + 1, maxLength: extra.maxItems + 1 }));
    if ((extra.minItems ?? 0) > 0) options.push(fc.array(item, { maxLength: extra.minItems! - 1 }));
    options.push(
      fc
        .tuple(fc.array(item, { maxLength: 2 }), invalidValue(schema.items, depth + 1))
        .map(([valid, bad]) => [...valid, bad]),
    );
    options.push(fc.constant(null).map(() => hugeArray(fc.sample(item, { numRuns: 1, seed: 7 })[0] ?? 1)));
  }
  if (types.includes('object') && depth < 3) {
    const properties = schema.properties ?? {};
    const names = Object.keys(properties);
    const base = validObject(schema, depth);
    if (names.length > 0) {
      options.push(
        fc
          .tuple(base, fc.constantFrom(...names))
          .chain(([object, name]) =>
            invalidValue(properties[name], depth + 1).map((bad) => ({ ...object, [name]: bad })),
          ),
      );
      options.push(fc.tuple(base, hostilePiece).map(([object, key]) => ({ ...object, [key || 'unknown']: 'x' })));
      if ((schema.required ?? []).length > 0)
        options.push(fc.tuple(base, fc.constantFrom(...schema.required!)).map(([object, name]) => omit(object, name)));
    }
  }
  return fc.oneof(...options);
}

function omit(object: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _dropped, ...rest } = object;
  return rest;
}

// ---------------------------------------------------------------------------------------------
// Whole requests.

/** As a query string carries it: scalars as text, the rest as JSON. */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);

type Pairs = Array<[string, string, boolean?]>;

/** A value the path accepts (never empty: that would be another route). */
const validPathValue = (schema: JsonSchema): fc.Arbitrary<PathValue> =>
  validValue(schema).map((value) => ({ value: asText(value) || 'x' }));

const badPathValue: fc.Arbitrary<PathValue> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...BAD_UUIDS).map((value) => ({ value })) },
  { weight: 2, arbitrary: hostileString.filter((value) => value !== '').map((value) => ({ value })) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_PATH_SEGMENTS).map((value): PathValue => ({ value, raw: true })) },
);

type QueryParameter = Operation['parameters'][number];

/** A query the operation accepts: required parameters always, optional ones now and then; strings often hostile. */
function validQuery(parameters: QueryParameter[]): fc.Arbitrary<Pairs> {
  const each = parameters.map((parameter) => {
    const pair = validValue(parameter.schema).map((value) => [[parameter.name, asText(value)]] as Pairs);
    return parameter.required ? pair : fc.option(pair, { freq: 2 });
  });
  return fc.tuple(...each).map((pairs) => pairs.flatMap((pair) => pair ?? []));
}

/** One query parameter made wrong: invalid, hostile, repeated, a malformed escape, dropped (required), or an unknown one. */
function queryMutation(parameters: QueryParameter[]): fc.Arbitrary<{ name: string; pairs: Pairs; what: string }> {
  const unknown = fc
    .tuple(
      fc.constantFrom('unknown', '__proto__', 'constructor', 'q[]', 'sort[field]', 'page[0]', '', '%00'),
      hostileString,
    )
    .map(([name, value]) => ({
      name: `\u0001${name}`,
      pairs: [[name, value]] as Pairs,
      what: `unknown query parameter ${JSON.stringify(name)}`,
    }));
  const options: Array<fc.Arbitrary<{ name: string; pairs: Pairs; what: string }>> = [unknown];
  for (const parameter of parameters) {
    const name = parameter.name;
    options.push(
      fc.oneof(
        {
          weight: 3,
          arbitrary: invalidValue(parameter.schema).map((value) => ({
            name,
            pairs: [[name, asText(value)]] as Pairs,
            what: `query ${name} invalid`,
          })),
        },
        {
          weight: 3,
          arbitrary: hostileString.map((value) => ({
            name,
            pairs: [[name, value]] as Pairs,
            what: `query ${name} hostile`,
          })),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(validValue(parameter.schema), hostileString).map(([a, b]) => ({
            name,
            pairs: [
              [name, asText(a)],
              [name, b],
            ] as Pairs,
            what: `query ${name} repeated`,
          })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom('%', '%zz', '%00', '%ED%A0%80', '%FF%FE', '+', '%2B', '&', '=')
            .map((raw) => ({ name, pairs: [[name, raw, true]] as Pairs, what: `query ${name} raw ${raw}` })),
        },
      ),
    );
    if (parameter.required)
      options.push(fc.constant({ name, pairs: [] as Pairs, what: `query ${name} (required) missing` }));
  }
  return fc.oneof(...options);
}

/** As a header's bytes arrive over the wire (UTF-8 read as latin1), without the control characters Node refuses. */
export const headerSafe = (value: string) =>
  Buffer.from(value, 'utf8')
    .toString('latin1')
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '');

const GENERIC_HEADERS = [
  'x-request-id',
  'if-none-match',
  'if-modified-since',
  'accept-language',
  'accept',
  'x-forwarded-for',
  'user-agent',
  'range',
  'accept-encoding',
];

/** Documented headers with valid values (required ones always), and now and then a hostile value in a header every route may read. */
function validHeaders(documented: QueryParameter[]): fc.Arbitrary<Array<[string, string]>> {
  const each = documented.map((parameter) => {
    const pair = validValue(parameter.schema).map(
      (value) => [parameter.name, headerSafe(asText(value)) || 'x'] as [string, string],
    );
    return parameter.required ? pair : fc.option(pair, { freq: 2 });
  });
  const generic = fc.option(
    fc
      .tuple(fc.constantFrom(...GENERIC_HEADERS), hostileString)
      .map(([name, value]) => [name, headerSafe(value)] as [string, string]),
    { freq: 3 },
  );
  return fc
    .tuple(fc.tuple(...each), generic)
    .map(([pairs, extra]) =>
      [...pairs, extra].filter((pair): pair is [string, string] => pair !== null && pair[1] !== ''),
    );
}

function headerMutation(
  documented: QueryParameter[],
): fc.Arbitrary<{ name: string; value: string | null; what: string }> {
  return fc.oneof(
    ...documented.map((parameter) =>
      fc.oneof(
        invalidValue(parameter.schema).map((value) => ({
          name: parameter.name,
          value: headerSafe(asText(value)),
          what: `header ${parameter.name} invalid`,
        })),
        hostileString.map((value) => ({
          name: parameter.name,
          value: headerSafe(value),
          what: `header ${parameter.name} hostile`,
        })),
        fc.constant({ name: parameter.name, value: null, what: `header ${parameter.name} missing` }),
      ),
    ),
  );
}

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** A value as form fields: an object's entries as text, anything else as one field. */
const formOf = (value: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(typeof value === 'object' && value !== null ? value : { value }).map(([key, item]) => [
      key,
      asText(item),
    ]),
  );
const isForm = (operation: FuzzOperation) =>
  operation.contentTypes.some((type) => FORM_TYPES.includes(type)) &&
  !operation.contentTypes.includes('application/json');

function bodyCase(operation: FuzzOperation): fc.Arbitrary<FuzzCase['body'] & { note: string }> {
  const schema = operation.body ?? {};
  const valid = validValue(schema);
  const json = (note: string, arbitrary: fc.Arbitrary<unknown>, weight = 1) => ({
    weight,
    arbitrary: arbitrary.map((value) => ({ kind: 'json' as const, value, note })),
  });
  const properties = Object.keys(schema.properties ?? {});
  const options = [
    json('valid shape, hostile strings', valid, 3),
    json('one value invalid (type, bound, format, null, unknown key, missing required)', invalidValue(schema), 6),
    json('not an object', fc.constantFrom(null, [], [{}], 'x', 0, true, '')),
    json('random JSON', fc.jsonValue({ maxDepth: 3 })),
    json(
      'unknown fields',
      fc
        .tuple(
          valid,
          fc.dictionary(fc.oneof(hostilePiece, fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 1 }), {
            minKeys: 1,
            maxKeys: 3,
          }),
        )
        .map(([body, extra]) =>
          typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...extra, ...body, ...extra } : extra,
        ),
    ),
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom<'array' | 'object'>('array', 'object'),
          fc.option(fc.constantFrom(...(properties.length > 0 ? properties : ['x'])), { freq: 2 }),
          valid,
        )
        .map(([deep, at, body]) => ({
          kind: 'json' as const,
          deep,
          note: `${DEEP_LEVELS} levels of nesting ${at === null ? 'as the body' : `in ${at}`}`,
          value:
            at === null
              ? DEEP_SENTINEL
              : { ...(typeof body === 'object' && body !== null ? body : {}), [at]: DEEP_SENTINEL },
        })),
    },
    json(
      'a huge array',
      fc
        .tuple(fc.option(fc.constantFrom(...(properties.length > 0 ? properties : ['x'])), { freq: 2 }), valid)
        .map(([at, body]) =>
          at === null
            ? hugeArray({})
            : { ...(typeof body === 'object' && body !== null ? body : {}), [at]: hugeArray('x') },
        ),
    ),
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{',
          '{"a":',
          '[1,]',
          "{'a':1}",
          '{"a":1}}',
          'nul',
          '"\\ud800"x',
          '\u0000',
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":{"admin":true}}}',
          '{"a":NaN}',
          '{"a":1e99999}',
        )
        .map((text) => ({
          kind: 'text' as const,
          text,
          contentType: 'application/json',
          invalidJson: true as const,
          note: 'malformed JSON',
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/json; charset=utf-16',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/vnd.fuzz+json',
            'application/json, text/plain',
            '',
          ),
        )
        .map(([body, contentType]) => ({
          kind: 'text' as const,
          text: JSON.stringify(body) ?? 'null',
          contentType,
          note: `content-type ${contentType || '(empty)'}`,
        })),
    },
  ];
  if (operation.contentTypes.some((type) => FORM_TYPES.includes(type))) {
    options.push({
      weight: isForm(operation) ? 6 : 2,
      arbitrary: invalidValue(schema).map((value) => ({
        kind: 'form' as const,
        value: formOf(value),
        note: 'form body, one value invalid',
      })) as never,
    });
  }
  return fc.oneof(...(options as Array<fc.WeightedArbitrary<FuzzCase['body'] & { note: string }>>));
}

/** Stands for the deep nesting in a body; replaced in the JSON text (building 10,000 levels as objects would only test JSON.stringify). */
export const DEEP_SENTINEL = '\u0001fuzz-deep\u0001';

export function deepJson(kind: 'array' | 'object'): string {
  return kind === 'array'
    ? '['.repeat(DEEP_LEVELS) + ']'.repeat(DEEP_LEVELS)
    : `${'{"a":'.repeat(DEEP_LEVELS)}1${'}'.repeat(DEEP_LEVELS)}`;
}

type Mutation =
  | { part: 'path'; index: number; value: PathValue }
  | { part: 'query'; name: string; pairs: Pairs; what: string }
  | { part: 'header'; name: string; value: string | null; what: string }
  | { part: 'body'; body: NonNullable<FuzzCase['body']> & { note: string } };

/**
 * Every request of the fuzz for one operation: a request the operation's schemas accept
 * (hostile strings within their bounds, so they reach the handlers and the database), with at
 * most one part made wrong: a path value, a query parameter, a documented header, or the body.
 */
export function fuzzCases(operation: FuzzOperation): fc.Arbitrary<FuzzCase> {
  const pathNames = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathSchemas = pathNames.map(
    (name) =>
      operation.parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema ?? {
        type: 'string',
      },
  );
  const query = operation.parameters.filter((parameter) => parameter.in === 'query');
  const headers = operation.parameters.filter((parameter) => parameter.in === 'header');
  const sendsBody = operation.body !== undefined || ['POST', 'PUT', 'PATCH'].includes(operation.method);
  const validBody =
    operation.body === undefined
      ? fc.constant(null)
      : validValue(operation.body).map((value) =>
          isForm(operation) ? { kind: 'form' as const, value: formOf(value) } : { kind: 'json' as const, value },
        );
  const mutations: Array<fc.WeightedArbitrary<Mutation | null>> = [
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: queryMutation(query).map((mutation): Mutation => ({ part: 'query', ...mutation })) },
  ];
  if (pathNames.length > 0)
    mutations.push({
      weight: 3,
      arbitrary: fc
        .tuple(fc.nat(pathNames.length - 1), badPathValue)
        .map(([index, value]): Mutation => ({ part: 'path', index, value })),
    });
  if (headers.length > 0)
    mutations.push({
      weight: 1,
      arbitrary: headerMutation(headers).map((mutation): Mutation => ({ part: 'header', ...mutation })),
    });
  if (sendsBody)
    mutations.push({
      weight: operation.body === undefined ? 2 : 6,
      arbitrary: bodyCase(operation).map((body): Mutation => ({ part: 'body', body })),
    });
  return fc
    .record({
      path: fc.tuple(...pathSchemas.map(validPathValue)),
      query: validQuery(query),
      headers: validHeaders(headers),
      body: validBody,
      mutation: fc.oneof(...mutations),
    })
    .map(({ path, query: pairs, headers: headerPairs, body, mutation }): FuzzCase => {
      const fuzz: FuzzCase = {
        note: 'accepted shape, hostile strings',
        path: Object.fromEntries(pathNames.map((name, i) => [name, path[i]!])),
        query: pairs,
        headers: Object.fromEntries(headerPairs),
        ...(body === null ? {} : { body }),
      };
      if (mutation?.part === 'path') {
        fuzz.path[pathNames[mutation.index]!] = mutation.value;
        fuzz.note = `path ${pathNames[mutation.index]} bad`;
      } else if (mutation?.part === 'query') {
        const at = fuzz.query.findIndex(([name]) => name === mutation.name);
        fuzz.query = fuzz.query.filter(([name]) => name !== mutation.name);
        fuzz.query.splice(at < 0 ? fuzz.query.length : at, 0, ...mutation.pairs);
        fuzz.note = mutation.what;
      } else if (mutation?.part === 'header') {
        if (mutation.value === null || mutation.value === '') delete fuzz.headers[mutation.name];
        else fuzz.headers[mutation.name] = mutation.value;
        fuzz.note = mutation.what;
      } else if (mutation?.part === 'body') {
        const { note, ...sent } = mutation.body;
        fuzz.body = sent as FuzzCase['body'];
        fuzz.note = note;
      }
      return fuzz;
    });
}

// ---------------------------------------------------------------------------------------------
// To an inject request.

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD's bytes, as on the wire). */
export function encodeComponent(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function injectOf(operation: Operation, fuzz: FuzzCase, token: string | undefined): InjectOptions {
  const path = operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = fuzz.path[name]!;
    return value.raw ? value.value : encodeComponent(value.value);
  });
  const query = fuzz.query
    .map(([name, value, raw]) => `${encodeComponent(name)}=${raw ? value : encodeComponent(value)}`)
    .join('&');
  const headers: Record<string, string> = { ...fuzz.headers };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  const body = fuzz.body;
  if (body?.kind === 'json') {
    const text = JSON.stringify(body.value) ?? 'null';
    payload = body.deep === undefined ? text : text.replace(JSON.stringify(DEEP_SENTINEL), deepJson(body.deep));
    headers['content-type'] = 'application/json';
  } else if (body?.kind === 'text') {
    payload = body.text;
    if (body.contentType !== '') headers['content-type'] = body.contentType;
  } else if (body?.kind === 'form') {
    payload = new URLSearchParams(body.value).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return {
    method: operation.method as InjectOptions['method'],
    url: query === '' ? path : `${path}?${query}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
  };
}

/** A case as a short line for a report: long values shortened. */
export function describeCase(fuzz: FuzzCase, request: InjectOptions): string {
  const payload = typeof request.payload === 'string' ? request.payload : '';
  const shown =
    payload.length > 300 && process.env.FUZZ_LOG !== '1'
      ? `${payload.slice(0, 200)}… (${payload.length} chars)`
      : payload;
  const url = String(request.url);
  const { authorization: _token, ...headers } = (request.headers ?? {}) as Record<string, string>;
  return `${fuzz.note}: ${request.method} ${url.length > 300 ? `${url.slice(0, 300)}…` : url} headers ${JSON.stringify(headers).slice(0, 300)} body ${JSON.stringify(shown)}`;
}
