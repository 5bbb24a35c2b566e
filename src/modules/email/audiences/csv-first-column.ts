/**
 * Reads the first column of an audience CSV (operation 9). Spreadsheets export all sorts: a
 * UTF-8 byte order mark, CRLF or LF (or old-Mac CR) line ends, quoted cells with commas, quotes
 * ("") and line breaks inside, blank lines and rows of empty cells (",,,") at the end. Only the
 * first cell of each row is kept, but every cell is scanned so quoting decides where rows end.
 * Lenient where a strict parser would refuse: a quote left open runs to the end of the text, and
 * text after a closing quote joins the cell; the address check that follows decides what is valid.
 *
 * Hand-written rather than csv-parse: on 2.5 M one-letter rows csv-parse takes 0.75 s without
 * line numbers and 8.5–9.8 s with them (its per-record `info` or `on_record` context), this 0.3 s
 * (the largest upload: `npm run bench -- --only "at the bound"`); csv-parse numbers a row by the
 * line it ends on; and its lenient mode (`skip_records_with_error`) drops the good rows after a
 * malformed one.
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

/**
 * Reads the first cells a stretch at a time, so a caller can hand the event loop back between
 * stretches: a 5,000,000-character upload read in one go held it for seconds. The text is already
 * in memory (it came in a JSON body); what is kept between stretches is the scanning state only.
 */
export class CsvFirstColumnReader {
  readonly #source: string;
  #i = 0;
  #line = 1;
  #rowLine = 1;
  #column = 0;
  #first = '';
  #cellStart = 0; // where the current unquoted stretch of the cell began
  #quoted = false; // inside quotes
  #rowHasContent = false;
  #done = false;

  constructor(text: string) {
    this.#source = text.startsWith(BOM) ? text.slice(1) : text;
  }

  /** Every row has been handed out. */
  get done(): boolean {
    return this.#done;
  }

  /**
   * Scans about `characters` more characters (a pair like CR LF or "" may take one more) and hands
   * `onCell` the first cell of every row that holds anything and ended in them; the last row
   * comes out with the stretch that reaches the end of the text.
   */
  read(characters: number, onCell: (cell: CsvCell) => void): void {
    if (this.#done) return;
    const source = this.#source;
    const end = Math.min(source.length, this.#i + Math.max(1, characters));
    while (this.#i < end) {
      const i = this.#i;
      const code = source.charCodeAt(i);
      if (this.#quoted) {
        if (code === QUOTE) {
          if (source.charCodeAt(i + 1) === QUOTE) {
            if (this.#column === 0) this.#first += '"';
            this.#i = i + 2;
            continue;
          }
          this.#quoted = false;
          this.#cellStart = i + 1;
        } else {
          if (this.#column === 0) this.#first += source[i];
          if (code === LF || (code === CR && source.charCodeAt(i + 1) !== LF)) this.#line += 1;
        }
        this.#i = i + 1;
        continue;
      }
      if (code === COMMA || code === LF || code === CR) {
        if (this.#column === 0) this.#first += source.slice(this.#cellStart, i);
        if (code === COMMA) {
          this.#column += 1;
          this.#cellStart = i + 1;
          this.#i = i + 1;
          continue;
        }
        // A row ends at LF, CR LF or a lone CR.
        this.#endRow(onCell);
        this.#i = i + (code === CR && source.charCodeAt(i + 1) === LF ? 2 : 1);
        this.#line += 1;
        this.#rowLine = this.#line;
        this.#cellStart = this.#i;
        continue;
      }
      if (code === QUOTE && source.slice(this.#cellStart, i).trim() === '') {
        // An opening quote (spaces before it are dropped, as a spreadsheet would).
        this.#quoted = true;
        this.#rowHasContent = true;
        this.#i = i + 1;
        continue;
      }
      if (code !== 32 && code !== 9) this.#rowHasContent = true;
      this.#i = i + 1;
    }
    if (this.#i >= source.length) {
      if (this.#column === 0 && !this.#quoted) this.#first += source.slice(this.#cellStart);
      this.#endRow(onCell);
      this.#done = true;
    }
  }

  #endRow(onCell: (cell: CsvCell) => void): void {
    if (this.#rowHasContent) onCell({ value: this.#first.trim(), line: this.#rowLine });
    this.#column = 0;
    this.#first = '';
    this.#rowHasContent = false;
  }
}

/** The first cell of every row that holds anything, in order, in one go (small texts and tests). */
export function csvFirstColumn(text: string): CsvCell[] {
  const reader = new CsvFirstColumnReader(text);
  const cells: CsvCell[] = [];
  while (!reader.done) reader.read(Number.MAX_SAFE_INTEGER, (cell) => cells.push(cell));
  return cells;
}

/** Is this first cell a header naming the column (`email`, any case)? */
export function isEmailHeader(cell: CsvCell): boolean {
  return cell.value.toLowerCase() === 'email';
}
