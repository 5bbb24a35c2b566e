import { describe, expect, it } from 'vitest';
import { isoDateTime } from '../../src/lib/instant.js';

describe('isoDateTime', () => {
  const schema = isoDateTime();

  it.each(['2026-11-25T04:00:00Z', '2026-11-25T04:00:00.123+02:00', '2026-11-25T04:00:00-09:30'])(
    'takes %s',
    (value) => {
      expect(schema.safeParse(value)).toEqual({ success: true, data: value });
    },
  );

  it('refuses an offset no clock has, once, with the issue zod gives a malformed date-time', () => {
    const result = schema.safeParse('2026-11-25T04:00:00+99:99');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: 'invalid_string', validation: 'datetime', message: 'Invalid datetime' }),
    ]);
  });

  it('refuses text that is no date-time with a single issue', () => {
    const result = schema.safeParse('yesterday');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
  });
});
