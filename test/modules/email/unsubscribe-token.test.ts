import { describe, expect, it } from 'vitest';
import {
  signUnsubscribeToken,
  unsubscribeUrl,
  verifyUnsubscribeToken,
} from '../../../src/modules/email/unsubscribe-token.js';

const KEY = 'k'.repeat(43);

describe('unsubscribe tokens', () => {
  it('round-trip the lowercased address and the message id', () => {
    const token = signUnsubscribeToken(KEY, {
      email: 'Ada@Example.test',
      messageId: '0b6f3c8e-1111-4000-8000-000000000001',
    });
    expect(verifyUnsubscribeToken(KEY, token)).toEqual({
      email: 'ada@example.test',
      messageId: '0b6f3c8e-1111-4000-8000-000000000001',
    });
    expect(
      verifyUnsubscribeToken(KEY, signUnsubscribeToken(KEY, { email: 'b@example.test', messageId: null })),
    ).toEqual({ email: 'b@example.test', messageId: null });
  });

  it('refuse another key, an altered payload or signature, and anything malformed', () => {
    const token = signUnsubscribeToken(KEY, { email: 'ada@example.test', messageId: null });
    const [version, payload, mac] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ e: 'victim@example.test', m: null })).toString('base64url');
    for (const bad of [
      signUnsubscribeToken('other'.repeat(9), { email: 'ada@example.test', messageId: null }),
      `${version}.${forged}.${mac}`,
      `${version}.${payload}.${mac.slice(0, -2)}`,
      `u0.${payload}.${mac}`,
      `${version}.${payload}`,
      '',
      'garbage',
      '...',
    ])
      expect(verifyUnsubscribeToken(KEY, bad)).toBeUndefined();
  });

  it('make a link to the public unsubscribe route', () => {
    expect(unsubscribeUrl('https://api.example.test', 'u1.a.b')).toBe(
      'https://api.example.test/v1/public/email/unsubscribe?token=u1.a.b',
    );
  });
});
