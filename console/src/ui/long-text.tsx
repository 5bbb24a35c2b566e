/**
 * A free-text value of any length in a table cell (a reason, a URL, a note): at most three lines
 * of at most 40 characters' width, wrapped anywhere, so a 500-character word neither widens its
 * column nor squeezes the others. The whole value is its title (and the row's detail, where the
 * row opens one).
 */
export function LongText({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined || value === '') return null;
  return (
    <span className="long-text" title={value}>
      {value}
    </span>
  );
}
