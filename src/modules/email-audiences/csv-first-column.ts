/**
 * Reads the first column of an audience CSV (operation 9). Spreadsheets export all sorts: a
 * UTF-8 byte order mark, CRLF or LF (or old-Mac CR) line ends, quoted cells with commas, quotes
 * ("") and line breaks inside, blank lines and rows of empty cells (",,,") at the end. Only the
 * first cell of each row is kept, but every cell is scanned so quoting decides where rows end.
 * Lenient where a strict parser would refuse: a quote left open runs to the end of the text, and
 * text after a closing quote joins the cell; the address check that follows decides what is valid.
 */

export interface CsvCell {
  /** The first cell, trimmed of surrounding spaces. */
  value: string;
  /** The line (1-based, as an editor numbers them) where the row starts. */
  line: number;
}

const BOM = '\uFEFF';
const QUOTE = 34; // "
const COMMA = 44; // ,
const LF = 10;
const CR = 13;

/** The first cell of every row that holds anything, in order; the header row is not removed here. */
export function csvFirstColumn(text: string): CsvCell[] {
  const source = text.startsWith(BOM) ? text.slice(1) : text;
  const cells: CsvCell[] = [];
  let line = 1;
  let rowLine = 1;
  let column = 0;
  let first = '';
  let cellStart = 0; // where the current unquoted stretch of the cell began
  let quoted = false; // inside quotes
  let rowHasContent = false;

  const cellText = (end: number) => source.slice(cellStart, end);
  const endRow = () => {
    if (rowHasContent) cells.push({ value: first.trim(), line: rowLine });
    column = 0;
    first = '';
    rowHasContent = false;
  };

  let i = 0;
  while (i < source.length) {
    const code = source.charCodeAt(i);
    if (quoted) {
      if (code === QUOTE) {
        if (source.charCodeAt(i + 1) === QUOTE) {
          if (column === 0) first += '"';
          i += 2;
          continue;
        }
        quoted = false;
        cellStart = i + 1;
      } else {
        if (column === 0) first += source[i];
        if (code === LF || (code === CR && source.charCodeAt(i + 1) !== LF)) line += 1;
      }
      i += 1;
      continue;
    }
    if (code === COMMA || code === LF || code === CR) {
      if (column === 0) first += cellText(i);
      if (code === COMMA) {
        column += 1;
        cellStart = i + 1;
        i += 1;
        continue;
      }
      // A row ends at LF, CR LF or a lone CR.
      endRow();
      i += code === CR && source.charCodeAt(i + 1) === LF ? 2 : 1;
      line += 1;
      rowLine = line;
      cellStart = i;
      continue;
    }
    if (code === QUOTE && source.slice(cellStart, i).trim() === '') {
      // An opening quote (spaces before it are dropped, as a spreadsheet would).
      quoted = true;
      rowHasContent = true;
      i += 1;
      continue;
    }
    if (code !== 32 && code !== 9) rowHasContent = true;
    i += 1;
  }
  if (column === 0 && !quoted) first += cellText(source.length);
  endRow();
  return cells;
}

/** Is this first cell a header naming the column (`email`, any case)? */
export function isEmailHeader(cell: CsvCell): boolean {
  return cell.value.toLowerCase() === 'email';
}
