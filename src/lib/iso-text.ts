const MS_PER_DAY = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * `date.toISOString()` for a valid date, about three times faster: a page of 50 users carries 150
 * timestamps, and V8's own formatter was most of the cost of writing it (bench/README.md). The
 * calendar date comes from the day count (Howard Hinnant's civil-from-days, proleptic Gregorian
 * like ECMAScript's); years outside 0000–9999, which ISO writes with a sign, are left to V8.
 */
export function isoText(date: Date): string {
  const time = date.getTime();
  const days = Math.floor(time / MS_PER_DAY);
  let rest = time - days * MS_PER_DAY;
  // Days since 0000-03-01, so that a leap day ends its year; eras of 400 years repeat exactly.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9_999) return date.toISOString();
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  const millis = rest - seconds * 1_000;
  const century = TWO_DIGITS[Math.floor(year / 100)];
  const calendarDay = `${century}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
  return `${calendarDay}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}
