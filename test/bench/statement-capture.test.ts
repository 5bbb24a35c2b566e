import { describe, expect, it } from 'vitest';
import { parseLog, statementsBetween } from '../../bench/statement-capture.js';

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

  it('names a named prepared statement by its name, and an unnamed one by none', () => {
    const line = (pid: number, message: string) =>
      `2026-11-29 21:00:00.000 UTC [${pid}] postgres@platform_bench_1 LOG:  ${message}`;
    const log = [
      line(9, "statement: SELECT 'bench statement capture begin: users'"),
      line(4242, 'execute users_list_68291ce60a74: /* prepared by shape: users_list */ select 1'),
      line(4242, 'execute <unnamed>: select 2'),
      line(4242, 'statement: BEGIN'),
      line(9, "statement: SELECT 'bench statement capture end: users'"),
      '',
    ].join('\n');
    expect(statementsBetween(parseLog(log), 'users', new Set([4242]))).toEqual([
      { protocol: 'execute', name: 'users_list_68291ce60a74', sql: '/* prepared by shape: users_list */ select 1' },
      { protocol: 'execute', sql: 'select 2' },
      { protocol: 'statement', sql: 'BEGIN' },
    ]);
  });
});
