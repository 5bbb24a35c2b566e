import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { documentedOperations, type Operation } from './route-table.js';

/**
 * The `q` text filters of the lists, from the OpenAPI document. Every LIKE built from a caller's
 * text escapes `\`, `%` and `_` (kernel/pagination.ts `escapeLike`), so `q=%` finds the rows that
 * hold a percent sign, not every row. The "matches every row" report came from lists that took
 * `q` and never filtered on it: they now refuse it (400), and a list that documents `q` filters.
 */

let t: TestApp;
let staff: TestUser;
let operations: Map<string, Operation>;

/** Each list documenting `q` as a filter, with what it matches (a new one fails until classified here). */
const TEXT_FILTERED: Record<string, string> = {
  'GET /v1/admin/roles': 'key or name',
  'GET /v1/admin/users': 'email or display name (or the id)',
  'GET /v1/admin/audit': 'action, target id, reason or request id',
  'GET /v1/admin/audit/facets': 'as the audit list',
  'GET /v1/admin/catalog/achievements': 'key or name',
  'GET /v1/admin/store/games': 'title or slug',
  'GET /v1/admin/store/genres': 'name or slug',
  'GET /v1/admin/store/developers': 'name or slug',
  'GET /v1/admin/store/publishers': 'name or slug',
  'GET /v1/public/store/games': 'title or slug',
  'GET /v1/admin/site/content-blocks': 'slot',
  'GET /v1/admin/site/pages': 'slug or title',
  'GET /v1/admin/site/announcements': 'title or body',
  'GET /v1/admin/billing/ledger': 'reason or reference id',
  'GET /v1/admin/billing/coupons': 'name',
  'GET /v1/admin/billing/promotion-codes': 'code',
  'GET /v1/admin/billing/subscriptions': "the subscriber's email",
  'GET /v1/admin/billing/payments': "the payment's or the provider's id (exactly), or the payer's email",
  'GET /v1/admin/email/outbox': 'the recipient',
  'GET /v1/admin/email/templates': 'key or name',
  'GET /v1/admin/email/audiences': 'name',
  'GET /v1/admin/email/audiences/{id}/members': 'email',
  'GET /v1/admin/email/campaigns': 'name',
  'GET /v1/admin/email/suppressions': 'email',
  'GET /v1/admin/email/waitlist': 'email',
  'GET /v1/admin/support/tickets': 'subject',
};

const qOf = (operation: Operation) =>
  operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'q');
/** `q` documented as refused: its schema admits no value. */
const refusesQ = (operation: Operation) => JSON.stringify(qOf(operation)?.schema) === '{"not":{}}';

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['*']);
  operations = await documentedOperations(t);
});
afterAll(async () => {
  await t.close();
});

/** Rows whose text holds `%`, `_` or `\` literally, and one with none of them. */
const MARKED = {
  percent: '100% Juice',
  underscore: 'snake_case Racer',
  backslash: 'Back\\slash Bros',
  plain: 'Plain Game',
};
/** Each query and the only marked row it may find. */
const LITERAL_QUERIES: Array<[string, keyof typeof MARKED]> = [
  ['%', 'percent'],
  ['_', 'underscore'],
  ['\\', 'backslash'],
  ['0%', 'percent'],
  ['e_c', 'underscore'],
];

async function listed(url: string, q: string, pick: (row: any) => string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url, query: { q, per_page: '100' }, token: staff.token });
  expect(response.statusCode, `${url}?q=${q}: ${response.body.slice(0, 200)}`).toBe(200);
  return (response.json().data as unknown[]).map(pick).sort();
}

/** Runs every literal query on a list holding the marked rows (tagged so other rows never match). */
async function expectLiteralMatches(
  url: string,
  tag: string,
  pick: (row: any) => string,
  shown: (text: string) => string = (text) => `${text} ${tag}`,
) {
  for (const [q, only] of LITERAL_QUERIES) {
    const found = (await listed(url, q, pick)).filter((text) => text.includes(tag));
    expect(found, `${url}?q=${q}`).toEqual([shown(MARKED[only])]);
  }
  expect((await listed(url, tag, pick)).length, `${url}?q=${tag}`).toBe(4);
}

describe('the lists and their q', () => {
  it('every list documenting q as a filter is classified here; the others document it as refused', () => {
    const withQ = [...operations.values()].filter((operation) => qOf(operation) !== undefined);
    const filtering = withQ
      .filter((operation) => !refusesQ(operation))
      .map((operation) => operation.route)
      .sort();
    expect(filtering).toEqual(Object.keys(TEXT_FILTERED).sort());
    expect(
      withQ
        .filter(refusesQ)
        .map((operation) => operation.route)
        .sort(),
    ).toEqual([
      'GET /v1/admin/billing/invoices',
      'GET /v1/admin/billing/lots',
      'GET /v1/admin/notifications/broadcasts',
      'GET /v1/admin/ops/incidents',
      'GET /v1/admin/site/pages/{id}/versions',
      'GET /v1/admin/site/settings/{section}/versions',
      'GET /v1/admin/system/cron/{id}/runs',
    ]);
  });

  it('a list with no text filter refuses q (400 SchemaError on q) instead of answering every row', async () => {
    const pathValue = (schema: { type?: string | string[]; format?: string }) =>
      schema.format === 'uuid' ? randomUUID() : schema.type === 'integer' ? '1' : 'general';
    const refusing = [...operations.values()].filter(refusesQ);
    expect(refusing).toHaveLength(7);
    for (const operation of refusing) {
      let url = operation.path;
      for (const parameter of operation.parameters.filter((p) => p.in === 'path'))
        url = url.replace(`{${parameter.name}}`, pathValue(parameter.schema));
      for (const q of ['%', '_', 'anything']) {
        const response = await t.request({ method: 'GET', url, query: { q }, token: staff.token });
        expect(response.statusCode, `${operation.route} q=${q}: ${response.body.slice(0, 200)}`).toBe(400);
        expect(response.json()).toMatchObject({
          success: false,
          error: { name: 'SchemaError', issues: [expect.objectContaining({ path: ['q'] })] },
        });
      }
      expect((await t.request({ method: 'GET', url, token: staff.token })).statusCode, operation.route).not.toBe(400);
    }
  });
});

describe('q matches %, _ and \\ literally', () => {
  it('store games, staff and public lists: by title', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    for (const title of Object.values(MARKED)) {
      const made = await t.request({
        method: 'POST',
        url: '/v1/admin/store/games',
        token: staff.token,
        payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: `${title} ${tag}`, status: 'published' },
      });
      expect(made.statusCode, made.body).toBe(201);
    }
    await expectLiteralMatches('/v1/admin/store/games', tag, (row) => row.title);
    await expectLiteralMatches('/v1/public/store/games', tag, (row) => row.title);
  });

  it('billing coupons: by name', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    for (const name of Object.values(MARKED)) {
      const made = await t.request({
        method: 'POST',
        url: '/v1/admin/billing/coupons',
        token: staff.token,
        payload: { name: `${name} ${tag}`, percent_off: 10, duration: 'once' },
      });
      expect(made.statusCode, made.body).toBe(201);
    }
    await expectLiteralMatches('/v1/admin/billing/coupons', tag, (row) => row.name);
  });

  it('email suppressions: by address', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    const address = (text: string) => `${text.toLowerCase().replaceAll(' ', '.')}.${tag}@example.test`;
    await t.db
      .insertInto('email_suppressions')
      .values(
        Object.values(MARKED).map((text) => ({
          email: address(text),
          reason: 'manual' as const,
          source: 'staff',
          message_id: null,
        })),
      )
      .execute();
    await expectLiteralMatches('/v1/admin/email/suppressions', tag, (row) => row.email, address);
  });

  it('users (the segment of the users list and of broadcasts): by display name', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    for (const text of Object.values(MARKED)) {
      const user = await createUser(t.db);
      await t.db
        .updateTable('users')
        .set({ display_name: `${text} ${tag}` })
        .where('id', '=', user.id)
        .execute();
    }
    await expectLiteralMatches('/v1/admin/users', tag, (row) => row.display_name ?? '');
  });
});
