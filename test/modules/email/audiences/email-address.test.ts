import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emailAddress,
  isEmailAddress,
  MAX_EMAIL_LENGTH,
} from '../../../../src/modules/email/audiences/email-address.js';

/**
 * `isEmailAddress` checks CSV rows without zod (a refusal through zod costs ~6 µs, seconds over a
 * large upload). It must accept exactly what `emailAddress`, the one definition every route
 * validates with, accepts: a row refused in a CSV is refused in `members`, and the reverse.
 */

const byZod = (value: string) => emailAddress.safeParse(value).success;

describe('isEmailAddress agrees with the emailAddress schema', () => {
  it.each([
    'a@b.co',
    'A.B+tag@Example.TEST',
    "o'brien@example.test",
    'x_y-z@sub.domain.example',
    ' padded@example.test\t',
    'x',
    '',
    '@',
    'a@',
    '@b.co',
    'a@b',
    'a@b.c',
    'a@b.c1',
    '.a@b.co',
    'a.@b.co',
    'a..b@c.co',
    'a@-b.co',
    'a@b..co',
    'a@b.co.',
    'a b@c.co',
    'a@b c.co',
    '"a"@b.co',
    'ä@b.co',
    'a@bé.co',
    'a@@b.co',
    'a@b.co\nc@d.co',
    'email',
    'EMAIL',
    `${'a'.repeat(64)}@${'b'.repeat(251)}.com`,
    `${'a'.repeat(64)}@${'b'.repeat(252)}.com`,
    `  ${'a'.repeat(314)}@b.co  `,
  ])('%j', (value) => {
    expect(isEmailAddress(value)).toBe(byZod(value));
  });

  it('on generated text made of the characters addresses are built from', () => {
    const unit = fc.constantFrom(...'aZ09._-+\'@@..@ \t\n"é,;!~'.split(''));
    const agrees = (value: string) => isEmailAddress(value) === byZod(value);
    fc.assert(fc.property(fc.string({ unit, maxLength: 24 }), agrees), { numRuns: 20_000 });
  });

  it('on generated well-formed and nearly well-formed addresses, around the length bound too', () => {
    const part = (characters: string, maxLength: number) =>
      fc.string({ unit: fc.constantFrom(...characters.split('')), maxLength });
    const address = fc
      .record({
        padding: fc.constantFrom(0, 0, 0, 300, 309, 310, 311, 320),
        local: part("ab9-_.+'", 10),
        at: fc.constantFrom('@', '@', '@', '@@', ''),
        labels: fc.array(part('ab9-', 6), { minLength: 1, maxLength: 3 }),
        dots: fc.constantFrom('.', '.', '..'),
        top: part('ab9', 4),
      })
      .map(
        ({ padding, local, at, labels, dots, top }) => `${'x'.repeat(padding)}${local}${at}${labels.join(dots)}.${top}`,
      );
    fc.assert(
      fc.property(address, (value) => isEmailAddress(value) === byZod(value)),
      { numRuns: 20_000 },
    );
    // The generator reaches both answers, on either side of the length bound.
    const sample = fc.sample(address, { numRuns: 5_000, seed: 1 });
    expect(sample.some((value) => byZod(value) && value.length > 300)).toBe(true);
    // …and addresses refused for their length alone (the same without the leading x's is fine).
    const refusedForLength = (value: string) =>
      !byZod(value) && value.length > MAX_EMAIL_LENGTH && byZod(value.replace(/^x+/, 'x'));
    expect(sample.some(refusedForLength)).toBe(true);
  });
});
