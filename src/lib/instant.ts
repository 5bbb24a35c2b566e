import { z } from 'zod';

/**
 * The date-times zod 3's `datetime({ offset: true })` took, which clients send today: seconds may be
 * left out (`T10:30Z`) and an offset may be written without its colon (`+0530`). zod 4's own
 * `z.iso.datetime` refuses both. Its issue and documentation are zod 4's (`invalid_format`,
 * `format: datetime`; `format: date-time`).
 */
const OFFSET_DATE_TIME = new RegExp(
  `^${z.regexes.date.source.slice(1, -1)}T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$`,
);
export const offsetDateTime = z.stringFormat('datetime', OFFSET_DATE_TIME);

/**
 * An ISO 8601 date-time with its offset (`Z` or `±hh:mm`) naming a real instant. The pattern alone
 * also takes offsets no clock has (`+99:99`), which `new Date()` reads as an Invalid Date: the
 * query built on it failed (a 500). Refused with the pattern's own issue (once: a string the
 * pattern already refused is not refused again); documented as before (`format: date-time`).
 */
export const isoDateTime = () =>
  offsetDateTime.superRefine((value, ctx) => {
    if (Number.isNaN(Date.parse(value)) && offsetDateTime.safeParse(value).success) {
      ctx.addIssue({ code: 'invalid_format', format: 'datetime' });
    }
  });
