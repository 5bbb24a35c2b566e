import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AnySchema } from './zod-introspection.js';
import { NOT_SHAPED, shapeOf, type Shaper } from './response-shaper.js';

interface SerializerRoute {
  schema: unknown;
  method: string;
  url: string;
}

export interface ResponseSerializerOptions {
  /**
   * Every answer is also parsed by zod itself: the shaper must accept exactly what zod accepts and
   * write the same text, else the answer is a thrown error (a 500 whose log names the route). For
   * the test suites: each of their answers becomes a check of the shaper against zod. Costs what
   * the shaper saves and more.
   */
  verifyResponseShaping?: boolean;
  /**
   * How a schema becomes a shaper (response-shaper.ts's `shapeOf` unless given). A test passes a
   * deliberately wrong one to prove that the verifying mode catches a shaper that disagrees with zod.
   */
  compileShaper?: (schema: AnySchema) => Shaper;
}

/**
 * Answers that never change once made (a cached profile, frozen and shared by every read of it):
 * the serializer keeps each one's text beside it, so a repeated read is not shaped and written
 * out again. Only what is marked here: a frozen object may still hold mutable values, so being
 * frozen is not enough.
 */
const unchanging = new WeakSet<object>();

/** Marks an answer as never changing (and freezes it): its text is made once per route's schema. */
export function unchangingAnswer<T extends object>(answer: T): Readonly<T> {
  unchanging.add(Object.freeze(answer));
  return answer;
}

/** Fastify's route schema may be the zod schema itself or `{ properties: schema }`. */
function zodSchemaOf(schema: unknown): AnySchema {
  if (schema instanceof z.core.$ZodType) return schema;
  if (typeof schema === 'object' && schema !== null && 'properties' in schema) {
    const { properties } = schema as { properties: unknown };
    if (properties instanceof z.core.$ZodType) return properties;
  }
  throw new Error(`a response schema must be a zod schema: ${JSON.stringify(schema)}`);
}

/** The text of an unchanging answer, made once per route (a WeakMap: dropped with the answer). */
function keepingTexts(serialize: (data: unknown) => string): (data: unknown) => string {
  const texts = new WeakMap<object, string>();
  return (data) => {
    if (typeof data !== 'object' || data === null || !unchanging.has(data)) return serialize(data);
    let text = texts.get(data);
    if (text === undefined) {
      text = serialize(data);
      texts.set(data, text);
    }
    return text;
  };
}

/**
 * The response serializer: each route's response schema is compiled once into a shaper
 * (response-shaper.ts), and an answer is its shaped value as JSON. Whatever the shaper is not
 * sure of goes to zod, whose verdict stands: a refusal is the same ResponseSerializationError
 * (a 500) as with fastify-type-provider-zod's serializer, which this replaces.
 */
export function createResponseSerializerCompiler(options: ResponseSerializerOptions = {}) {
  const compileShaper = options.compileShaper ?? shapeOf;
  return ({ schema: routeSchema, method, url }: SerializerRoute) => {
    const schema = zodSchemaOf(routeSchema);
    const shape = compileShaper(schema);
    const byZod = (data: unknown): string => {
      const result = z.safeParse(schema, data);
      if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
      return JSON.stringify(result.data);
    };
    const serialize = (data: unknown): string => {
      const shaped = shape(data);
      return shaped === NOT_SHAPED ? byZod(data) : JSON.stringify(shaped);
    };
    if (!options.verifyResponseShaping) return keepingTexts(serialize);
    return (data: unknown): string => {
      const shaped = shape(data);
      const result = z.safeParse(schema, data);
      if (shaped === NOT_SHAPED && !result.success)
        throw new ResponseSerializationError(method, url, { cause: result.error });
      const text = shaped === NOT_SHAPED ? undefined : JSON.stringify(shaped);
      const expected = result.success ? JSON.stringify(result.data) : undefined;
      if (text !== expected) {
        throw new Error(
          `response shaping differs from zod for ${method} ${url}: ${text ?? 'refused'} where zod gives ` +
            `${expected ?? 'refused'}`,
        );
      }
      return text as string;
    };
  };
}
