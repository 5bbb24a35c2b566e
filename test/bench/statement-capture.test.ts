import { describe, expect, it } from 'vitest';
import { parseLog } from '../../bench/statement-capture.js';

/**
 * The same-work floors are checked against PostgreSQL's statement log (bench/statement-capture.ts).
 * A line of Debian's default prefix (`%m [%p] %q%u@%d `) as log_statement = 'all' writes it:
 * multi-line SQL continues on lines starting with a tab, parameters follow as DETAIL.
 */
const LOG = [
  '2026-11-27 22:37:09.684 UTC [4242] postgres@platform_bench_1 LOG:  execute <unnamed>: WITH stored AS (',
  '\t      SELECT "id" FROM t',
  '\t    )',
  '\t    SELECT 1',
  "2026-11-27 22:37:09.684 UTC [4242] postgres@platform_bench_1 DETAIL:  parameters: $1 = '25', $2 = NULL",
  '2026-11-27 22:37:09.690 UTC [77] postgres@other_db LOG:  statement: BEGIN',
  '',
].join('\n');

describe('the statement log parser', () => {
  it('keeps each entry’s pid and level and puts continued lines back without the tab', () => {
    expect(parseLog(LOG)).toEqual([
      {
        pid: 4242,
        level: 'LOG',
        message: 'execute <unnamed>: WITH stored AS (\n      SELECT "id" FROM t\n    )\n    SELECT 1',
      },
      { pid: 4242, level: 'DETAIL', message: "parameters: $1 = '25', $2 = NULL" },
      { pid: 77, level: 'LOG', message: 'statement: BEGIN' },
    ]);
  });
});
