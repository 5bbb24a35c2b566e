import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { testAuditAction } from '../../helpers/audit-pictures.js';

/**
 * The audit list's total, filtered by action alone or not at all, comes from migration 0040's
 * trigger-kept counts per action, not a count of the log: it must equal `count(*)` of the same
 * filter after every kind of write, rolled back, concurrent or hand-run.
 */

let t: TestApp;
let reader: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUser(t.db, ['audit.read']);
});

afterAll(async () => {
  await t.close();
});

async function listedTotal(query = ''): Promise<number> {
  const response = await t.request({ method: 'GET', url: `/v1/admin/audit?per_page=1${query}`, token: reader.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().meta.total;
}

async function facetsTotal(query = ''): Promise<number> {
  const response = await t.request({
    method: 'GET',
    url: `/v1/admin/audit/facets${query ? `?${query.slice(1)}` : ''}`,
    token: reader.token,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().total;
}

/** `count(*)` of the log, all of it or the entries whose action matches a LIKE pattern. */
async function countedEntries(pattern?: string): Promise<number> {
  let query = t.db.selectFrom('audit_log').select(sql<number>`count(*)::int`.as('n'));
  if (pattern !== undefined) query = query.where('action', 'like', pattern);
  return (await query.executeTakeFirstOrThrow()).n;
}

/** The totals the list answers for the whole log, a prefix and one action, against `count(*)`. */
async function expectExactTotals(): Promise<void> {
  expect(await listedTotal()).toBe(await countedEntries());
  expect(await listedTotal('&action=count.*')).toBe(await countedEntries('count.%'));
  expect(await listedTotal('&action=count.alpha')).toBe(await countedEntries('count.alpha'));
}

// The rows this file inserts are its own actions, not pictures the service wrote.
const entry = (action: string) => ({
  action: testAuditAction(action),
  target_type: 'count-test',
  target_id: randomUUID(),
  summary: JSON.stringify({}),
});

describe('GET /v1/admin/audit total by action', () => {
  it('equals count(*) after single and multi-row inserts of several actions, and a delete', async () => {
    await expectExactTotals();
    await t.db.insertInto('audit_log').values(entry('count.alpha')).execute();
    await t.db
      .insertInto('audit_log')
      .values([entry('count.alpha'), entry('count.beta'), entry('count.beta'), entry('other.gamma')])
      .execute();
    await expectExactTotals();
    expect(await listedTotal('&action=count.beta')).toBe(2);
    const before = await listedTotal('&action=count.*');
    await t.db.deleteFrom('audit_log').where('action', '=', 'count.beta').execute();
    expect(await listedTotal('&action=count.*')).toBe(before - 2);
    expect(await listedTotal('&action=count.beta')).toBe(0);
    await expectExactTotals();
  });

  it('counts a staff write through the routes, and the facets answer the same total', async () => {
    const editor = await createUser(t.db, ['roles.write']);
    const before = await listedTotal('&action=roles.*');
    const created = await t.request({
      method: 'POST',
      url: '/v1/admin/roles',
      payload: { key: `count-${Date.now()}`, name: 'Counted' },
      token: editor.token,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(await listedTotal('&action=roles.*')).toBe(before + 1);
    expect(await listedTotal('&action=roles.*')).toBe(await countedEntries('roles.%'));
    expect(await facetsTotal('&action=roles.*')).toBe(before + 1);
    expect(await facetsTotal()).toBe(await countedEntries());
  });

  it('is unchanged by a rolled-back insert, and follows an update that changes the action', async () => {
    const before = await listedTotal('&action=count.*');
    await expect(
      t.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('audit_log')
          .values([entry('count.alpha'), entry('count.delta')])
          .execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await listedTotal('&action=count.*')).toBe(before);
    const moved = entry('count.alpha');
    await t.db.insertInto('audit_log').values(moved).execute();
    await t.db
      .updateTable('audit_log')
      .set({ action: testAuditAction('moved.alpha') })
      .where('target_id', '=', moved.target_id)
      .execute();
    expect(await listedTotal('&action=count.*')).toBe(before);
    expect(await listedTotal('&action=moved.alpha')).toBe(1);
    // An update that leaves the action alone (a redaction) counts nothing.
    await t.db
      .updateTable('audit_log')
      .set({ summary: JSON.stringify({ redacted: true }) })
      .where('action', 'like', 'count.%')
      .execute();
    await expectExactTotals();
  });

  it('stays exact under concurrent audited writes', async () => {
    const before = await listedTotal('&action=count.alpha');
    await Promise.all(
      Array.from({ length: 30 }, () => t.db.insertInto('audit_log').values(entry('count.alpha')).execute()),
    );
    expect(await listedTotal('&action=count.alpha')).toBe(before + 30);
    await expectExactTotals();
  });

  it("takes a prefix's LIKE characters literally", async () => {
    await t.db
      .insertInto('audit_log')
      .values([entry('lit_x.one'), entry('litQx.one')])
      .execute();
    expect(await listedTotal('&action=lit_x.*')).toBe(1);
    expect(await listedTotal('&action=lit%25*')).toBe(0);
  });

  it('counts the matches when another filter is set', async () => {
    const target = randomUUID();
    await t.db
      .insertInto('audit_log')
      .values([
        { ...entry('count.alpha'), target_id: target },
        { ...entry('count.beta'), target_id: target },
      ])
      .execute();
    expect(await listedTotal(`&action=count.*&target_id=${target}`)).toBe(2);
    expect(await listedTotal(`&action=count.alpha&target_id=${target}`)).toBe(1);
    expect(await listedTotal('&action=count.*&target_type=no-such-type')).toBe(0);
  });

  it('starts again from zero after a TRUNCATE', async () => {
    await sql`TRUNCATE audit_log`.execute(t.db);
    const kept = await t.db
      .selectFrom('audit_count_slots')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(kept.n).toBe(0);
    expect(await listedTotal()).toBe(0);
    await t.db.insertInto('audit_log').values(entry('count.alpha')).execute();
    await expectExactTotals();
    expect(await listedTotal()).toBe(1);
  });
});
