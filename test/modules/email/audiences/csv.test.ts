import { describe, expect, it } from 'vitest';
import {
  CsvFirstColumnReader,
  csvFirstColumn,
  type CsvCell,
} from '../../../../src/modules/email/audiences/csv-first-column.js';
import {
  INVALID_SAMPLE_SIZE,
  MAX_AUDIENCE_MEMBERS,
  readCsvMembers,
  resolveMembers,
} from '../../../../src/modules/email/audiences/member-list.js';

/** The first column of an audience CSV, as spreadsheets and scripts write them (operation 9). */

const values = (text: string) => csvFirstColumn(text).map((cell) => cell.value);

const CASES = [
  { name: 'LF rows', text: 'a\nb\nc', expected: ['a', 'b', 'c'] },
  { name: 'CRLF rows and a trailing line end', text: 'a\r\nb\r\n', expected: ['a', 'b'] },
  { name: 'old-Mac CR rows', text: 'a\rb', expected: ['a', 'b'] },
  { name: 'a UTF-8 BOM', text: '\uFEFFa,x\nb', expected: ['a', 'b'] },
  {
    name: 'blank and whitespace-only lines, rows of empty cells',
    text: '\n\na\n   \n,,,\n\t\nb\n\n',
    expected: ['a', 'b'],
  },
  { name: 'only the first column', text: 'a,b,c\nd,"e,f",g', expected: ['a', 'd'] },
  {
    name: 'a quoted first cell with a comma, quotes and a line break',
    text: '"x, ""y""\nz",second\nnext',
    expected: ['x, "y"\nz', 'next'],
  },
  { name: 'quoted later cells spanning lines', text: 'a,"1\r\n2\r\n3"\r\nb,"q""q"', expected: ['a', 'b'] },
  { name: 'spaces around cells and before a quote', text: '  a  ,x\n  "b"  ,y', expected: ['a', 'b'] },
  { name: 'an empty first cell in a row that has data', text: ',x\na', expected: ['', 'a'] },
  { name: 'a quote inside an unquoted cell is literal', text: 'a"b,c', expected: ['a"b'] },
  { name: 'a quote left open runs to the end', text: '"abc\ndef', expected: ['abc\ndef'] },
  { name: 'nothing at all', text: '', expected: [] },
  { name: 'only a BOM', text: '\uFEFF', expected: [] },
];

/** The cells as the reader hands them out when it reads `characters` at a time. */
function inStretches(text: string, characters: number): CsvCell[] {
  const reader = new CsvFirstColumnReader(text);
  const cells: CsvCell[] = [];
  while (!reader.done) reader.read(characters, (cell) => cells.push(cell));
  return cells;
}

describe('csvFirstColumn', () => {
  it.each(CASES)('$name', ({ text, expected }) => {
    expect(values(text)).toEqual(expected);
  });

  it.each(CASES)('$name, read a few characters at a time: the same cells', ({ text }) => {
    const whole = csvFirstColumn(text);
    for (const characters of [1, 2, 3, 5]) expect(inStretches(text, characters)).toEqual(whole);
  });

  it('numbers each row by the line it starts on, counting line breaks inside quotes', () => {
    const text = 'h\r\n\r\n"a\r\nb",c\nd\r"e\nf"\ng';
    const expected = [
      { value: 'h', line: 1 },
      { value: 'a\r\nb', line: 3 },
      { value: 'd', line: 5 },
      { value: 'e\nf', line: 6 },
      { value: 'g', line: 8 },
    ];
    expect(csvFirstColumn(text)).toEqual(expected);
    // A stretch ending between CR and LF, or between two quotes, changes nothing.
    for (const characters of [1, 2, 3, 4]) expect(inStretches(text, characters)).toEqual(expected);
  });
});

describe('readCsvMembers and resolveMembers', () => {
  it('drops a header row named email (any case, only as the first row) and checks each address', async () => {
    const read = await readCsvMembers('\uFEFF EMAIL ,name\r\na@example.test\r\nemail\r\nnot an address\r\n');
    expect(read.candidates).toEqual([{ email: 'a@example.test' }]);
    expect(read.invalidRows).toEqual([
      { value: 'email', line: 3 },
      { value: 'not an address', line: 4 },
    ]);
    expect(read.invalidRowCount).toBe(2);
  });

  it('names the first refused rows and counts all; holds each address once, one past the limit at most', async () => {
    const bad = Array.from({ length: 1_000 }, (_, n) => `bad ${n}`);
    const good = Array.from({ length: MAX_AUDIENCE_MEMBERS + 10 }, (_, n) => `m${n}@example.test`);
    const read = await readCsvMembers([...bad, 'A@example.test', 'a@EXAMPLE.test', ...good].join('\n'));
    expect(read.invalidRowCount).toBe(1_000);
    expect(read.invalidRows).toEqual(bad.slice(0, INVALID_SAMPLE_SIZE).map((value, n) => ({ value, line: n + 1 })));
    expect(read.candidates).toHaveLength(MAX_AUDIENCE_MEMBERS + 1);
    expect(read.candidates.slice(0, 2)).toEqual([{ email: 'A@example.test' }, { email: 'm0@example.test' }]);
  });

  it('keeps the first of each address case-insensitively', () => {
    const { members, invalidUsers } = resolveMembers(
      [{ email: 'B@x.test' }, { email: 'a@x.test' }, { email: 'b@X.TEST' }],
      new Map(),
    );
    expect(members).toEqual([
      { email: 'b@x.test', user_id: null },
      { email: 'a@x.test', user_id: null },
    ]);
    expect(invalidUsers).toEqual([]);
  });
});
