import { describe, expect, it } from 'vitest';
import { isoDateTime } from '../../src/lib/instant.js';

describe('isoDateTime', () => {
  const schema = isoDateTime();

  // The last two are zod 3's forms that zod 4's `z.iso.datetime` refuses: no seconds, an offset without its colon.
  it.each([
    '2026-11-25T04:00:00Z',
    '2026-11-25T04:00:00.123+02:00',
    '2026-11-25T04:00:00-09:30',
    '2026-11-25T04:00Z',
    '2026-11-25T04:00:00+0530',
  ])('takes %s', (value) => {
    expect(schema.safeParse(value)).toEqual({ success: true, data: value });
  });

  it('refuses an offset no clock has, once, with the issue zod gives a malformed date-time', () => {
    const result = schema.safeParse('2026-11-25T04:00:00+99:99');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: 'invalid_format', format: 'datetime', message: 'Invalid ISO datetime' }),
    ]);
  });

  it.each(['yesterday', '2026-11-25T04:00:00+05', '2026-11-25'])(
    'refuses %s, which is no date-time, with a single issue',
    (value) => {
      const result = schema.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([expect.objectContaining({ code: 'invalid_format', format: 'datetime' })]);
    },
  );
});
