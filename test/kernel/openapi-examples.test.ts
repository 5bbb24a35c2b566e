import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { SPEC_OPERATIONS } from '../helpers/spec-operations.js';

/**
 * Examples are part of the contract: the spec's 21 operations show one for every body they take
 * and every answer they give, and no example anywhere contradicts the schema it illustrates (a
 * wrong example misleads more than none). Read from the committed document, which a sibling test
 * holds equal to the served one.
 */
type Media = { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> };
type Operation = {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
};

const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Document;
const ajv = new Ajv2020({ strict: false, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema(document as object, 'openapi.json');

const pointer = (...parts: string[]) =>
  `openapi.json#/${parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function mediaExamples(media: Media): unknown[] {
  if (media.example !== undefined) return [media.example];
  return Object.values(media.examples ?? {}).map((example) => example.value);
}

/** The examples a reader sees for a body: its own, or those of the component it names. */
function shownExamples(media: Media): unknown[] {
  const own = mediaExamples(media);
  if (own.length > 0) return own;
  const name = media.schema?.$ref?.split('/').pop();
  return name === undefined ? [] : (document.components.schemas[name]?.examples ?? []);
}

describe('OpenAPI examples', () => {
  it("show every request body and success answer of the spec's 21 operations", () => {
    for (const [operationId, method, path] of SPEC_OPERATIONS) {
      const operation = document.paths[path]?.[method.toLowerCase()];
      expect(operation, operationId).toBeDefined();
      const body = operation!.requestBody?.content['application/json'];
      if (body !== undefined) expect(shownExamples(body).length, `${operationId} request`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(operation!.responses)) {
        const answer = response.content?.['application/json'];
        if (!status.startsWith('2') || answer === undefined) continue;
        expect(shownExamples(answer).length, `${operationId} ${status}`).toBeGreaterThan(0);
      }
    }
  });

  it('never contradict the schema they illustrate', () => {
    let checked = 0;
    const check = (where: string, schemaPointer: string, examples: unknown[]) => {
      const validate = ajv.getSchema(schemaPointer);
      if (validate === undefined) throw new Error(`no schema at ${schemaPointer}`);
      for (const example of examples) {
        checked++;
        expect(validate(example), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    };
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
          check(
            `${method} ${path} request`,
            pointer('paths', path, method, 'requestBody', 'content', type, 'schema'),
            mediaExamples(media),
          );
        for (const [status, response] of Object.entries(operation.responses))
          for (const [type, media] of Object.entries(response.content ?? {}))
            check(
              `${method} ${path} ${status}`,
              pointer('paths', path, method, 'responses', status, 'content', type, 'schema'),
              mediaExamples(media),
            );
      }
    for (const [name, schema] of Object.entries(document.components.schemas))
      check(name, pointer('components', 'schemas', name), schema.examples ?? []);
    expect(checked).toBeGreaterThanOrEqual(30);
  });
});
