import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/lib/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes two values that mean the same as the same text, whatever their key order', () => {
    expect(canonicalJson({ x: 1, y: [1, 2] })).toBe(canonicalJson({ y: [1, 2], x: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('writes scalars and escapes keys as JSON does', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson({ 'k"': true })).toBe('{"k\\"":true}');
  });
});
