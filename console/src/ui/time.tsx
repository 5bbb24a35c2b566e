/** Times in the staff member's own time zone (the browser's), with the zone named. */
// dateStyle/timeStyle cannot be combined with timeZoneName: the parts are named one by one.
const formatter = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

export function Time({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return <time dateTime={date.toISOString()}>{formatter.format(date)}</time>;
}

/** A `datetime-local` field's value (the browser's zone) as an ISO instant; undefined when empty. */
export function instantOf(local: string): string | undefined {
  if (local.trim() === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
