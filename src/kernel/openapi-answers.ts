/**
 * Success answers described by what they carry: @fastify/swagger knows a response's description
 * only from its schema's own `description`, and a named schema (`$ref`) reaches it before the
 * component exists, so it would say "Default Response". Run after the components are written.
 */

const SCHEMA_REF = '#/components/schemas/';

type Node = Record<string, unknown>;
interface Document {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

/** What swagger writes where a response schema says nothing of itself. */
export const UNDESCRIBED = 'Default Response';

function referencedDescription(schema: unknown, components: Record<string, unknown>): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const ref = (schema as Node).$ref;
  if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF)) return undefined;
  const component = components[ref.slice(SCHEMA_REF.length)] as Node | undefined;
  return typeof component?.description === 'string' ? component.description : undefined;
}

export function withAnswerDescriptions(document: Document): void {
  const components = document.components?.schemas ?? {};
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, Node> }).responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        if (!status.startsWith('2') || response.description !== UNDESCRIBED) continue;
        const content = response.content as Record<string, { schema?: unknown }> | undefined;
        const described = Object.values(content ?? {})
          .map((media) => referencedDescription(media.schema, components))
          .find((text) => text !== undefined);
        if (described !== undefined) response.description = described;
      }
    }
  }
}
