import { describe, expect, it } from 'vitest';
import { poolBudget, statementKind } from '../../src/lib/split-pool.js';

describe('statementKind: which budget a connection is taken from', () => {
  it.each([
    'select "id", "email" from "users" where "id" = $1',
    '  \n SELECT 1',
    '/* prepared: principal_row */ SELECT u.id FROM users u WHERE u.id = $1',
    '-- why\nselect count(*) from audit_log',
    'select "updated_at", "shared_with" from "games"',
  ])('a plain SELECT reads: %s', (text) => {
    expect(statementKind(text)).toBe('read');
  });

  it.each([
    'begin',
    'start transaction isolation level repeatable read',
    'insert into "users" ("id") values ($1)',
    'update "users" set "display_name" = $1',
    'delete from "sessions" where "id" = $1',
    "WITH async AS (SELECT set_config('synchronous_commit', 'off', true)) UPDATE users SET last_seen_at = $1",
    'with page as (select 1) select * from page',
    'select * from "users" where "id" = $1 for update',
    'select * from "achievements" for no key update',
    'select 1 from "roles" for share',
    'select pg_notify($1, $2)',
    "select set_config('platform_api.x', 'on', true)",
    "select nextval('invoice_numbers')",
    'select pg_advisory_xact_lock(7)',
    'select pg_try_advisory_lock(7)',
    'SET platform_api.own_commit_notices = on',
    '/* unterminated comment select 1',
    '',
  ])('anything else writes: %s', (text) => {
    expect(statementKind(text)).toBe('write');
  });
});

describe('poolBudget: the pool size split between reads and writes', () => {
  it.each([
    [2, { reads: 1, writes: 1 }],
    [3, { reads: 2, writes: 1 }],
    [10, { reads: 6, writes: 4 }],
    [30, { reads: 18, writes: 12 }],
    [1000, { reads: 600, writes: 400 }],
  ])('%i sessions: %o, together the whole size', (size, budget) => {
    expect(poolBudget(size)).toEqual(budget);
    expect(budget.reads + budget.writes).toBe(size);
  });

  it('a single session is not split: one pool for everything', () => {
    expect(poolBudget(1)).toBeUndefined();
  });
});
