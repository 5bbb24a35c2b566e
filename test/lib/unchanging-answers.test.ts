import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createResponseSerializerCompiler, unchangingAnswer } from '../../src/lib/response-serializer.js';
import { shapeOf } from '../../src/lib/response-shaper.js';
import type { AnySchema } from '../../src/lib/zod-introspection.js';

/** The real shaper, counting how often it shapes a value. */
function countingShaper() {
  const counted = { shaped: 0 };
  const compileShaper = (schema: AnySchema) => {
    const shape = shapeOf(schema);
    return (value: unknown) => {
      counted.shaped += 1;
      return shape(value);
    };
  };
  return { counted, compileShaper };
}

const profile = z.object({ id: z.number(), name: z.string() });
const route = (schema: AnySchema, url = '/things') => ({ schema, method: 'GET', url });

describe('unchangingAnswer: the text of an answer that never changes is made once', () => {
  it('shapes a marked answer once and answers the same text after', () => {
    const { counted, compileShaper } = countingShaper();
    const serialize = createResponseSerializerCompiler({ compileShaper })(route(profile));
    const answer = unchangingAnswer({ id: 1, name: 'Ada', secret: 'x' });
    expect(serialize(answer)).toBe('{"id":1,"name":"Ada"}');
    expect(serialize(answer)).toBe('{"id":1,"name":"Ada"}');
    expect(counted.shaped).toBe(1);
    expect(Object.isFrozen(answer)).toBe(true);
  });

  it('shapes an unmarked answer every time, frozen or not: what changed goes out', () => {
    const { counted, compileShaper } = countingShaper();
    const serialize = createResponseSerializerCompiler({ compileShaper })(route(profile));
    const answer = { id: 1, name: 'Ada' };
    expect(serialize(answer)).toBe('{"id":1,"name":"Ada"}');
    answer.name = 'Grace';
    expect(serialize(answer)).toBe('{"id":1,"name":"Grace"}');
    expect(serialize(Object.freeze({ id: 2, name: 'Lin' }))).toBe('{"id":2,"name":"Lin"}');
    expect(counted.shaped).toBe(3);
  });

  it("keeps a text per route: another route's schema writes its own", () => {
    const compile = createResponseSerializerCompiler();
    const answer = unchangingAnswer({ id: 1, name: 'Ada' });
    expect(compile(route(profile))(answer)).toBe('{"id":1,"name":"Ada"}');
    expect(compile(route(z.object({ id: z.number() }), '/ids'))(answer)).toBe('{"id":1}');
  });

  it('a refused answer is refused every time, never kept', () => {
    const serialize = createResponseSerializerCompiler()(route(profile));
    const answer = unchangingAnswer({ id: 'one', name: 'Ada' });
    expect(() => serialize(answer)).toThrow();
    expect(() => serialize(answer)).toThrow();
  });

  it('the verifying mode (the test apps) checks every answer against zod, kept or not', () => {
    const { counted, compileShaper } = countingShaper();
    const verifying = createResponseSerializerCompiler({ verifyResponseShaping: true, compileShaper })(route(profile));
    const answer = unchangingAnswer({ id: 1, name: 'Ada' });
    verifying(answer);
    verifying(answer);
    expect(counted.shaped).toBe(2);
  });
});
