import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createResponseSerializerCompiler } from '../../src/lib/response-serializer.js';

// A shaper with a bug: it keeps every key of the value, undocumented ones included. Passed in,
// not mocked: the test files of a fork share loaded modules (vitest.config.ts, isolate: false).
const keepsEverything = () => (value: unknown) => value;

describe('verifyResponseShaping, with a shaper that disagrees with zod', () => {
  const schema = z.object({ id: z.number() });

  it('throws, naming the route and both texts, where the shaper writes other text than zod', () => {
    const verifying = createResponseSerializerCompiler({ verifyResponseShaping: true, compileShaper: keepsEverything })(
      { schema, method: 'GET', url: '/things' },
    );
    expect(() => verifying({ id: 1, secret: 'x' })).toThrow(
      'response shaping differs from zod for GET /things: {"id":1,"secret":"x"} where zod gives {"id":1}',
    );
  });

  it('throws where the shaper accepts what zod refuses', () => {
    const verifying = createResponseSerializerCompiler({ verifyResponseShaping: true, compileShaper: keepsEverything })(
      { schema, method: 'GET', url: '/things' },
    );
    expect(() => verifying({ id: 'one' })).toThrow('where zod gives refused');
    expect(() => verifying({ id: 'one' })).not.toThrow(ResponseSerializationError);
  });

  it("without verifying, the shaper's text goes out: why the test apps verify", () => {
    const serialize = createResponseSerializerCompiler({ compileShaper: keepsEverything })({
      schema,
      method: 'GET',
      url: '/things',
    });
    expect(serialize({ id: 1, secret: 'x' })).toBe('{"id":1,"secret":"x"}');
  });
});
