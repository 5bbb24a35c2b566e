import pg from 'pg';

/** The driver's own parser (postgres-date): every text the fast path below does not take. */
const parseAnyTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (
  text: string,
) => Date | number | null;

const ZERO = 48;
const MS_PER_DAY = 86_400_000;

/** The digits at [from, from + count) as a number; -1 if one of them is no digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let at = from; at < from + count; at++) {
    const digit = text.charCodeAt(at) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days-from-civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * A `timestamptz` as PostgreSQL writes it in text (DateStyle ISO): `2026-11-29 23:35:25.123456+00`,
 * the offset as `+HH`, `+HH:MM` or `+HH:MM:SS`. The driver's parser runs three regular expressions
 * and builds the date through `Date.UTC` per value, the largest single cost of reading a staff list
 * (a page of 25 users carries 75 timestamps; bench/README.md). This reads the fixed positions of
 * the common form, years 1000 to 9999, with the driver's meaning: the first three fraction digits
 * are the milliseconds, the rest dropped. Anything else (BC, `infinity`, a five-digit year, a
 * malformed text) goes to the driver's parser, which stays the reference.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const fast = fastInstant(text);
  return fast === undefined ? parseAnyTimestamptz(text) : new Date(fast);
}

function fastInstant(text: string): number | undefined {
  const length = text.length;
  if (length < 22 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':')
    return undefined;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || minute < 0 || second < 0)
    return undefined;
  let at = 19;
  let millis = 0;
  if (text[at] === '.') {
    const end = fractionEnd(text, at + 1);
    const digits = end - at - 1;
    if (digits < 1 || digits > 6) return undefined;
    millis = digitsAt(text, at + 1, Math.min(digits, 3)) * (digits === 1 ? 100 : digits === 2 ? 10 : 1);
    at = end;
  }
  const sign = text[at];
  if (sign !== '+' && sign !== '-') return undefined;
  const offsetSeconds = offsetAt(text, at + 1);
  if (offsetSeconds === undefined) return undefined;
  const local = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1_000 + millis;
  return local - (sign === '-' ? -offsetSeconds : offsetSeconds) * 1_000;
}

function fractionEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code < ZERO || code > ZERO + 9) break;
    at++;
  }
  return at;
}

/** `HH`, `HH:MM` or `HH:MM:SS` from `from` to the end of the text, in seconds; undefined otherwise. */
function offsetAt(text: string, from: number): number | undefined {
  const rest = text.length - from;
  if (rest !== 2 && rest !== 5 && rest !== 8) return undefined;
  const hours = digitsAt(text, from, 2);
  if (hours < 0) return undefined;
  if (rest === 2) return hours * 3_600;
  if (text[from + 2] !== ':') return undefined;
  const minutes = digitsAt(text, from + 3, 2);
  if (minutes < 0) return undefined;
  if (rest === 5) return hours * 3_600 + minutes * 60;
  if (text[from + 5] !== ':') return undefined;
  const seconds = digitsAt(text, from + 6, 2);
  return seconds < 0 ? undefined : hours * 3_600 + minutes * 60 + seconds;
}
