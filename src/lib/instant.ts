import { z } from 'zod';

const offsetDateTime = z.string().datetime({ offset: true });

/**
 * An ISO 8601 date-time with its offset (`Z` or `±hh:mm`) naming a real instant. zod's
 * `datetime({ offset: true })` alone also takes offsets no clock has (`+99:99`), which `new Date()`
 * reads as an Invalid Date: the query built on it failed (a 500). Refused with zod's own issue for
 * a malformed date-time (once: a string zod already refused is not refused again); documented as
 * before (`format: date-time`).
 */
export const isoDateTime = () =>
  offsetDateTime.superRefine((value, ctx) => {
    if (Number.isNaN(Date.parse(value)) && offsetDateTime.safeParse(value).success) {
      ctx.addIssue({ code: z.ZodIssueCode.invalid_string, validation: 'datetime', message: 'Invalid datetime' });
    }
  });
