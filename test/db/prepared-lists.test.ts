import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/database.js';
import { asRead } from '../../src/lib/split-pool.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * The staff lists' statements run as named statements, one per shape (src/db/prepared-shapes.ts,
 * decision 0106), and answer the same once PostgreSQL has moved them to a generic plan (after
 * five executions); behind a transaction pooler (DATABASE_POOLER=transaction) they run unnamed
 * and answer the same. PostgreSQL only: the embedded database has no named statements to check.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('the staff lists as prepared statements', () => {
  /** Past the five custom plans PostgreSQL makes before it weighs a generic one. */
  const ASKED = 8;
  const DOMAIN = `prep-${randomUUID().slice(0, 6)}.test`;
  const EMAILS = ['c', 'a', 'b'].map((name) => `${name}@${DOMAIN}`);
  /** Each list's requests: the whole list, and filters that take the other statements. */
  const REQUESTS = {
    whole: '/v1/admin/users?per_page=25',
    filtered: `/v1/admin/users?q=${DOMAIN}&sort=email:asc`,
    group: '/v1/admin/audit?action=prep.*',
    byActor: '', // the actor's id is known once the staff member exists
  };

  let testDatabase: TestDatabase;
  /** Two sessions, so the one read session is where the lists ran and where their statements are. */
  let direct: Database;
  let viaPooler: Database;
  let t: TestApp;
  let pooled: TestApp;
  let staff: TestUser;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    direct = openPostgres({ connectionString: testDatabase.url!, poolMax: 2 });
    t = await startTestApp({ database: direct });
    viaPooler = await testDatabase.openAnother({ pooled: true });
    pooled = await startTestApp({ database: viaPooler });
    staff = await createUser(t.db, ['users.read', 'audit.read']);
    await t.db
      .insertInto('users')
      .values(EMAILS.map((email) => ({ id: randomUUID(), email, status: 'active' as const, provider: 'email' })))
      .execute();
    const entry = (action: string) => ({
      action,
      actor_id: staff.id,
      target_type: 'user',
      summary: JSON.stringify({}),
    });
    await t.db
      .insertInto('audit_log')
      .values([entry('prep.alpha'), entry('prep.beta'), entry('prep.beta'), entry('other.gamma')])
      .execute();
    REQUESTS.byActor = `/v1/admin/audit?action=prep.*&actor_id=${staff.id}`;
  });
  afterAll(async () => {
    await pooled?.close();
    await t?.close();
    await testDatabase?.drop();
  });

  async function answers(app: TestApp, url: string): Promise<unknown[]> {
    const bodies: unknown[] = [];
    for (let n = 0; n < ASKED; n += 1) {
      const response = await app.request({ method: 'GET', url, token: staff.token });
      expect(response.statusCode, response.body).toBe(200);
      bodies.push(response.json());
    }
    return bodies;
  }

  /** The first answer, once every later one is the same. */
  async function steadyAnswer(app: TestApp, url: string) {
    const [first, ...rest] = await answers(app, url);
    for (const later of rest) expect(later).toEqual(first);
    return first as { data: Array<Record<string, unknown>>; meta: { total: number } };
  }

  async function expectRightAnswers(app: TestApp): Promise<void> {
    const whole = await steadyAnswer(app, REQUESTS.whole);
    expect(whole.meta.total).toBe(EMAILS.length + 1);
    expect(whole.data.map((user) => user.email).sort()).toEqual([...EMAILS, staff.email].sort());
    const filtered = await steadyAnswer(app, REQUESTS.filtered);
    expect(filtered.data.map((user) => user.email)).toEqual([...EMAILS].sort());
    expect(filtered.meta.total).toBe(3);
    for (const url of [REQUESTS.group, REQUESTS.byActor]) {
      const audit = await steadyAnswer(app, url);
      expect(audit.data.map((row) => row.action).sort()).toEqual(['prep.alpha', 'prep.beta', 'prep.beta']);
      expect(audit.meta.total).toBe(3);
    }
  }

  const preparedStatements = async (db: TestApp['db']) => {
    const { rows } = await asRead(
      sql<{ name: string; plans: number; generic_plans: number }>`
        SELECT name, (generic_plans + custom_plans)::int AS plans, generic_plans::int FROM pg_prepared_statements`,
    ).execute(db);
    return (prefix: string) => rows.filter((row) => new RegExp(`^${prefix}_[0-9a-f]{12}$`).test(row.name));
  };

  it('runs each shape as a named statement of the session, also right on its generic plan', async () => {
    await expectRightAnswers(t);
    let named = await preparedStatements(t.db);
    // The whole list and the filtered one are two shapes of the page; the group filter's and the
    // actor's two of the audit page. Each count has its own.
    expect(named('users_list')).toHaveLength(2);
    expect(named('users_list_count')).toHaveLength(1);
    expect(named('audit_list')).toHaveLength(2);
    expect(named('audit_list_kept_count')).toHaveLength(1);
    expect(named('audit_list_count')).toHaveLength(1);
    for (const page of [...named('users_list'), ...named('audit_list')]) expect(page.plans).toBe(ASKED);

    // The plan PostgreSQL may switch to after five executions, for every execution: the same answers.
    await asRead(sql`SET plan_cache_mode = force_generic_plan`).execute(t.db);
    try {
      await expectRightAnswers(t);
      named = await preparedStatements(t.db);
      for (const page of [...named('users_list'), ...named('audit_list')])
        expect(page.generic_plans).toBeGreaterThanOrEqual(ASKED);
    } finally {
      await asRead(sql`RESET plan_cache_mode`).execute(t.db);
    }
  });

  it('answers the same behind a transaction pooler, where every statement is unnamed', async () => {
    await expectRightAnswers(pooled);
    expect((await asRead(sql`SELECT name FROM pg_prepared_statements`).execute(pooled.db)).rows).toEqual([]);
  });
});
