import { stringify } from 'csv-stringify/browser/esm/sync';

/**
 * CSV as RFC 4180 writes it (csv-stringify): quoted where a field needs it, rows ending with CRLF,
 * and a field a spreadsheet would run as a formula (=, +, -, @, a tab or CR first, or their
 * full-width forms) prefixed with an apostrophe, as OWASP advises, so opening the file never
 * runs what someone typed into a public form.
 */
export function csvOf(header: string[], rows: Array<Array<string | number | null | undefined>>): string {
  return stringify([header, ...rows], { record_delimiter: 'windows', escape_formulas: true });
}

/** Hands the text to the browser as a file download (nothing leaves the browser). */
export function downloadText(text: string, fileName: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
