import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoText } from '../../src/lib/iso-text.js';

// The range ECMAScript dates cover: ±100,000,000 days around the epoch.
const LAST_VALID_TIME = 8.64e15;

describe('isoText', () => {
  it.each([
    ['the epoch', '1970-01-01T00:00:00.000Z'],
    ['the millisecond before it', '1969-12-31T23:59:59.999Z'],
    ['the first day of year 0', '0000-01-01T00:00:00.000Z'],
    ['the last instant of year 9999', '9999-12-31T23:59:59.999Z'],
    ['a leap day of a 400th year', '2000-02-29T12:34:56.789Z'],
    ['the day after February of a century that is not a leap year', '1900-03-01T00:00:00.000Z'],
    ['a leap day', '2028-02-29T23:59:59.001Z'],
    ["New Year's Eve", '2026-12-31T23:59:59.999Z'],
  ])('writes %s as toISOString does', (_name, text) => {
    const date = new Date(text);
    expect(isoText(date)).toBe(text);
  });

  it.each([
    ['before year 0', '-000001-12-31T23:59:59.999Z'],
    ['after year 9999', '+010000-01-01T00:00:00.000Z'],
  ])("leaves a year %s to V8's signed form", (_name, text) => {
    expect(isoText(new Date(text))).toBe(text);
  });

  it('agrees with toISOString on any valid time', () => {
    fc.assert(
      fc.property(fc.integer({ min: -LAST_VALID_TIME, max: LAST_VALID_TIME }), (time) => {
        const date = new Date(time);
        expect(isoText(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees with toISOString on times of these centuries, to the millisecond', () => {
    const from = Date.UTC(1900, 0, 1);
    const to = Date.UTC(2200, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), (time) => {
        const date = new Date(time);
        expect(isoText(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});
