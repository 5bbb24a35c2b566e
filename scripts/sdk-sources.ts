/**
 * The SDK's generated sources, made from an OpenAPI document: `sdk/src/schema.d.ts` (openapi-typescript's
 * types of every path, operation and schema) and `sdk/src/operations.ts` (what the client must know at run
 * time: which operations take no token and which take an `Idempotency-Key`) and `sdk/src/request-fields.ts` (the
 * bounds of every request body's fields, for forms that check what the service will check). `npm run openapi` writes them
 * with openapi.json; run alone (`npm run sdk:generate`) this writes them from the committed openapi.json.
 * test/sdk/generated.test.ts fails when the committed files differ from a fresh generation.
 */
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
export const SDK_SOURCE_FILES = {
  schema: join(ROOT, 'sdk/src/schema.d.ts'),
  operations: join(ROOT, 'sdk/src/operations.ts'),
  requestFields: join(ROOT, 'sdk/src/request-fields.ts'),
} as const;

type SdkSources = Record<keyof typeof SDK_SOURCE_FILES, string>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  security?: unknown[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  parameters?: Array<{ $ref?: string; in?: string; name?: string }>;
}
interface Document {
  security?: unknown[];
  paths?: Record<
    string,
    Partial<Record<(typeof METHODS)[number], Operation>> & { parameters?: Operation['parameters'] }
  >;
  components?: { parameters?: Record<string, { in?: string; name?: string }>; schemas?: Record<string, JsonSchema> };
}

/** The part of JSON Schema a request body's bounds are read from. */
interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  pattern?: string;
  maxItems?: number;
}

/** A parameter itself, or the component parameter its `$ref` names. */
function resolveParameter(document: Document, parameter: { $ref?: string; in?: string; name?: string }) {
  const prefix = '#/components/parameters/';
  if (parameter.$ref?.startsWith(prefix)) return document.components?.parameters?.[parameter.$ref.slice(prefix.length)];
  return parameter;
}

/** `METHOD /path/{param}` of every operation matching `test`, in the document's order. */
function operationKeys(
  document: Document,
  test: (operation: Operation, pathParameters: Operation['parameters']) => boolean,
) {
  const keys: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined && test(operation, item.parameters)) keys.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return keys;
}

function operationsSource(document: Document): string {
  // No security requirement at all (an empty list) means no token; `[{}]` would mean an optional one.
  const open = operationKeys(document, (operation) => (operation.security ?? document.security ?? []).length === 0);
  const idempotent = operationKeys(document, (operation, pathParameters) =>
    [...(pathParameters ?? []), ...(operation.parameters ?? [])].some((parameter) => {
      const resolved = resolveParameter(document, parameter);
      return resolved?.in === 'header' && resolved.name?.toLowerCase() === 'idempotency-key';
    }),
  );
  const set = (keys: string[]) => `new Set([\n${keys.map((key) => `  '${key}',\n`).join('')}])`;
  return [
    '// Generated from openapi.json by scripts/sdk-sources.ts (`npm run openapi`): do not edit.',
    '',
    '/** Operations that take no token (`security: []`): the client asks its token provider nothing for them. */',
    `export const OPEN_OPERATIONS: ReadonlySet<string> = ${set(open)};`,
    '',
    '/** Operations that accept an `Idempotency-Key` header: the client makes one when the caller gives none. */',
    `export const IDEMPOTENCY_KEY_OPERATIONS: ReadonlySet<string> = ${set(idempotent)};`,
    '',
  ].join('\n');
}

/** A schema itself, or the component its `$ref` names. */
function resolveSchema(document: Document, schema: JsonSchema | undefined): JsonSchema | undefined {
  const prefix = '#/components/schemas/';
  if (schema?.$ref?.startsWith(prefix))
    return resolveSchema(document, document.components?.schemas?.[schema.$ref.slice(prefix.length)]);
  return schema;
}

const BOUNDS = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'format', 'pattern'] as const;

/** One field's rule: its type and bounds; a nullable field (`anyOf` with null) is read from its other branch. */
function fieldRule(document: Document, schema: JsonSchema, required: boolean): Record<string, unknown> {
  let field = resolveSchema(document, schema) ?? {};
  const branches = (field.anyOf ?? []).map((branch) => resolveSchema(document, branch) ?? {});
  const nullable =
    branches.some((branch) => branch.type === 'null') || (Array.isArray(field.type) && field.type.includes('null'));
  if (branches.length > 0) field = branches.find((branch) => branch.type !== 'null') ?? field;
  const type = Array.isArray(field.type) ? field.type.find((each) => each !== 'null') : field.type;
  const rule: Record<string, unknown> = {};
  if (type !== undefined) rule.type = type;
  if (required) rule.required = true;
  if (nullable) rule.nullable = true;
  for (const bound of BOUNDS)
    if (field[bound] !== undefined && Math.abs(Number(field[bound])) !== 9007199254740991) rule[bound] = field[bound];
  if (field.enum !== undefined) rule.enum = field.enum;
  return rule;
}

function requestFieldsSource(document: Document): string {
  const operations: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      let body = resolveSchema(document, item[method]?.requestBody?.content?.['application/json']?.schema);
      // An optional body (`anyOf` an object and null) is read from its object.
      body = body?.anyOf?.map((branch) => resolveSchema(document, branch)).find((branch) => branch?.properties) ?? body;
      if (body?.properties === undefined || Object.keys(body.properties).length === 0) continue;
      const required = new Set(body.required ?? []);
      const rules: Record<string, Record<string, unknown>> = {};
      for (const [name, schema] of Object.entries(body.properties)) {
        rules[name] = fieldRule(document, schema, required.has(name));
        // A list of objects (incident rules, audience members): each item's fields as `name[].field`.
        const items = resolveSchema(document, resolveSchema(document, schema)?.items);
        const itemRequired = new Set(items?.required ?? []);
        for (const [field, itemSchema] of Object.entries(items?.properties ?? {}))
          rules[`${name}[].${field}`] = fieldRule(document, itemSchema, itemRequired.has(field));
      }
      operations[`${method.toUpperCase()} ${path}`] = rules;
    }
  }
  return [
    '// Generated from openapi.json by scripts/sdk-sources.ts (`npm run openapi`): do not edit.',
    '',
    "/** A request body field's type and bounds, as the service checks them. */",
    'export interface FieldRule {',
    '  type?: string;',
    '  required?: true;',
    '  nullable?: true;',
    '  minLength?: number;',
    '  maxLength?: number;',
    '  minimum?: number;',
    '  maximum?: number;',
    '  minItems?: number;',
    '  maxItems?: number;',
    '  format?: string;',
    '  pattern?: string;',
    '  enum?: readonly unknown[];',
    '}',
    '',
    "/** The fields of every JSON request body, by `METHOD /path` (a list's items as `name[].field`): forms check them first. */",
    `export const REQUEST_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = ${JSON.stringify(operations, null, 2)};`,
    '',
  ].join('\n');
}

/** The generated files' exact text for this document. */
export async function sdkSources(document: unknown): Promise<SdkSources> {
  // openapi-typescript may annotate the object it walks: it gets a copy.
  const types = await openapiTS(structuredClone(document) as OpenAPI3, { silent: true });
  return {
    schema: `${COMMENT_HEADER}${astToString(types)}`,
    operations: operationsSource(document as Document),
    requestFields: requestFieldsSource(document as Document),
  };
}

/** The generated files as committed, for a comparison with `sdkSources`. */
export function committedSdkSources(): SdkSources {
  return {
    schema: readFileSync(SDK_SOURCE_FILES.schema, 'utf8'),
    operations: readFileSync(SDK_SOURCE_FILES.operations, 'utf8'),
    requestFields: readFileSync(SDK_SOURCE_FILES.requestFields, 'utf8'),
  };
}

export async function writeSdkSources(document: unknown): Promise<void> {
  const sources = await sdkSources(document);
  writeFileSync(SDK_SOURCE_FILES.schema, sources.schema);
  writeFileSync(SDK_SOURCE_FILES.operations, sources.operations);
  writeFileSync(SDK_SOURCE_FILES.requestFields, sources.requestFields);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeSdkSources(JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')));
  console.log(`wrote ${Object.values(SDK_SOURCE_FILES).join(', ')}`);
}
