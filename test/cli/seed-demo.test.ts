import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedCommand } from '../../src/cli/seed.js';
import type { Tally } from '../../src/cli/seed/context.js';
import { DEMO_PLAYER_COUNT, seedDemo } from '../../src/cli/seed/demo.js';
import { DEMO_OWNER, DEMO_STAFF } from '../../src/cli/seed/people.js';
import { CommandFailure, UsageError } from '../../src/cli/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startStripeServer, type StripeServer } from '../helpers/stripe-server.js';
import { signToken } from '../helpers/tokens.js';

/**
 * `seed --demo` (issue 32, part 4) on a fresh database of the suite (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): what it makes, seen through the real API as the demo staff see it, and a
 * second run that changes nothing. The entry point's process run is in seed-demo-process.test.ts.
 */

const USER_AGENT = 'platform-api seed --demo (test@localhost)';
const SLOW = 120_000;
/** The command on this process's own environment (vi.stubEnv changes it) and streams. */
const processIo = { env: process.env, stdout: process.stdout, stderr: process.stderr };

/** Rows of every table the seed writes to: a second run must leave each count as it was. */
const TABLES = [
  'users',
  'roles',
  'user_roles',
  'store_genres',
  'store_developers',
  'store_publishers',
  'store_games',
  'catalog_achievements',
  'site_settings_versions',
  'site_pages',
  'site_page_versions',
  'content_blocks',
  'announcements',
  'plan_rulesets',
  'plan_tiers',
  'billing_products',
  'billing_prices',
  'billing_customers',
  'billing_checkout_sessions',
  'billing_subscriptions',
  'billing_invoices',
  'billing_payments',
  'credit_ledger',
  'credit_lots',
  'credit_lot_draws',
  'email_templates',
  'email_template_versions',
  'email_audiences',
  'email_audience_members',
  'email_campaigns',
  'email_messages',
  'support_tickets',
  'support_messages',
  'game_sessions',
  'audit_log',
  'event_outbox',
] as const;

const made = (tally: Tally) => Object.fromEntries(tally.entries().map((entry) => [entry.kind, entry.created]));
const staffEmail = (role: string) => DEMO_STAFF.find((staff) => staff.role === role)!.email;

describe('seed --demo', () => {
  let t: TestApp;
  let first: Tally;
  let owner: string;

  async function rowCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(t.db);
      counts[table] = rows[0]!.n;
    }
    return counts;
  }

  async function get(path: string, token = owner) {
    const response = await t.request({ method: 'GET', url: path, token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  beforeAll(async () => {
    t = await startTestApp();
    first = await seedDemo(t.kernel, { userAgent: USER_AGENT });
    owner = await signToken({ sub: DEMO_OWNER.id, email: DEMO_OWNER.email });
  }, SLOW);
  afterAll(async () => {
    await t?.close();
  });

  it('makes the whole data set on an empty database and reports it by kind', () => {
    expect(made(first)).toMatchObject({
      'staff members': DEMO_STAFF.length,
      players: DEMO_PLAYER_COUNT,
      roles: 6,
      'role grants': DEMO_STAFF.length,
      'store games': 20,
      achievements: 6,
      'settings sections published': 4,
      pages: 4,
      'content blocks': 5,
      announcements: 3,
      'plan tiers': 3,
      'billing products': 5,
      'email campaigns': 2,
      'support tickets': 10,
      'banned players': 2,
      // Every player's welcome credits, and six goodwill grants.
      'credit grants': DEMO_PLAYER_COUNT + 6,
    });
    const counts = made(first);
    expect(counts.subscriptions).toBeGreaterThan(5);
    expect(counts['game sessions']).toBeGreaterThan(100);
    expect(counts['credit spends']).toBeGreaterThan(20);
    // The campaign's 50 messages, the tickets' confirmations and the rest, on the outbox transport.
    expect(counts['mail delivered']).toBeGreaterThanOrEqual(DEMO_PLAYER_COUNT + 10);
    expect(first.entries().find((entry) => entry.kind === 'runtime pools')?.skipped).toMatch(/in memory/);
  });

  it('the staff list of users shows the demo players, with tiers from their subscriptions', async () => {
    const all = await get('/v1/admin/users?per_page=100');
    expect(all.meta.total).toBe(DEMO_PLAYER_COUNT + DEMO_STAFF.length);
    const ana = all.data.find((user: { email: string }) => user.email === 'ana.silva.demo@example.com');
    expect(ana).toMatchObject({ display_name: 'Ana Silva', status: 'active' });
    const banned = await get('/v1/admin/users?status=banned');
    expect(banned.meta.total).toBe(2);

    const subscribed = await get('/v1/admin/users?has_subscription=true&per_page=100');
    expect(subscribed.meta.total).toBe(made(first).subscriptions);
    expect(subscribed.data.every((user: { tier: string }) => user.tier === 'plus' || user.tier === 'pro')).toBe(true);
  });

  it('subscriptions are active on the local provider, and the ledger holds grants, purchases and draws', async () => {
    const subscriptions = await get('/v1/admin/billing/subscriptions?status=active&per_page=100');
    expect(subscriptions.meta.total).toBe(made(first).subscriptions);
    const local = await t.db
      .selectFrom('billing_subscriptions')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('provider', '=', 'local')
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    expect(local.n).toBe(made(first).subscriptions);

    const kinds = await t.db
      .selectFrom('credit_ledger')
      .select(['kind', sql<number>`count(*)::int`.as('n')])
      .groupBy('kind')
      .execute();
    const byKind = Object.fromEntries(kinds.map((row) => [row.kind, row.n]));
    expect(byKind).toMatchObject({ grant: DEMO_PLAYER_COUNT + 6, purchase: made(first)['credit pack purchases'] });
    expect(byKind.spend).toBe(made(first)['credit spends']);
    const draws = await t.db
      .selectFrom('credit_lot_draws')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    expect(draws.n).toBeGreaterThanOrEqual(byKind.spend!);
  });

  it('the newsletter campaign went out (sent), the winter sale is a draft', async () => {
    const campaigns = await get('/v1/admin/email/campaigns');
    const byName = Object.fromEntries(
      campaigns.data.map((campaign: { name: string; status: string }) => [campaign.name, campaign.status]),
    );
    expect(byName).toEqual({ 'Demo: November newsletter': 'sent', 'Demo: Winter sale (draft)': 'draft' });
    // Nothing left waiting: the seed delivered what it queued, as serve's dispatcher would.
    const queued = await t.db
      .selectFrom('email_messages')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('status', '!=', 'sent')
      .executeTakeFirstOrThrow();
    expect(queued.n).toBe(0);
  });

  it('the store, the site and the support desk show the demo content', async () => {
    const store = await get('/v1/public/store/games?per_page=100', '');
    // Twenty games: two drafts and one hidden are not on the public store.
    expect(store.meta.total).toBe(17);
    const tickets = await get('/v1/admin/support/tickets?per_page=100');
    expect(tickets.meta.total).toBe(10);
    expect(new Set(tickets.data.map((ticket: { status: string }) => ticket.status))).toEqual(
      new Set(['open', 'answered', 'closed']),
    );
  });

  it('demo staff hold varied roles: the support agent reads tickets and nothing of roles or billing', async () => {
    const roles = await get('/v1/admin/roles?per_page=100');
    const members = Object.fromEntries(
      roles.data.map((role: { key: string; member_count: number }) => [role.key, role.member_count]),
    );
    expect(members).toMatchObject({
      owner: 1,
      'demo-admin': 1,
      'demo-support-agent': 2,
      'demo-content-editor': 1,
      'demo-billing': 1,
      'demo-marketing': 1,
      'demo-operations': 1,
    });
    const agent = DEMO_STAFF.find((staff) => staff.email === staffEmail('demo-support-agent'))!;
    const token = await signToken({ sub: agent.id, email: agent.email });
    await get('/v1/admin/support/tickets', token);
    for (const url of ['/v1/admin/roles', '/v1/admin/billing/subscriptions'])
      expect((await t.request({ method: 'GET', url, token })).statusCode).toBe(403);
  });

  it('audits what it did: staff actions under their own ids, with the seed command as user agent', async () => {
    const audit = await get('/v1/admin/audit?per_page=100');
    expect(audit.meta.total).toBeGreaterThan(100);
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_id'])
      .where('user_agent', '=', USER_AGENT)
      .execute();
    const editor = DEMO_STAFF.find((staff) => staff.role === 'demo-content-editor')!.id;
    expect(actions).toContainEqual({ action: 'store.game.create', actor_id: editor });
    expect(actions).toContainEqual({ action: 'users.role_grant', actor_id: null });
    expect(actions).toContainEqual({ action: 'site.page.publish', actor_id: editor });
  });

  it(
    'a second run makes nothing, writes nothing, and says so',
    async () => {
      const before = await rowCounts();
      const second = await seedDemo(t.kernel, { userAgent: USER_AGENT });
      expect(second.totalCreated).toBe(0);
      expect(await rowCounts()).toEqual(before);
      const found = Object.fromEntries(second.entries().map((entry) => [entry.kind, entry.existing]));
      expect(found).toMatchObject({ players: DEMO_PLAYER_COUNT, 'store games': 20, 'support tickets': 10 });
    },
    SLOW,
  );
});

describe('seed --demo with Stripe and SMTP configured', () => {
  const secretKey = 'sk_test_seeddemo';
  let stripe: StripeServer;
  let t: TestApp;

  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    t = await startTestApp({
      config: {
        stripeSecretKey: secretKey,
        stripeWebhookSecret: 'whsec_seeddemo',
        stripeApiBase: stripe.url,
        // Nothing listens on port 1: the seed must not hand demo mail to a real server.
        smtpUrl: 'smtp://127.0.0.1:1',
      },
    });
  }, SLOW);
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  it(
    'sells nothing (Stripe prices need its own ids), leaves the mail queued, and makes the rest',
    async () => {
      const tally = await seedDemo(t.kernel, { userAgent: USER_AGENT });
      const skipped = Object.fromEntries(tally.entries().map((entry) => [entry.kind, entry.skipped]));
      expect(skipped['billing products']).toMatch(/Stripe/);
      expect(skipped.subscriptions).toMatch(/Stripe/);
      expect(skipped['mail delivered']).toMatch(/SMTP_URL/);
      expect(made(tally)).toMatchObject({ players: DEMO_PLAYER_COUNT, 'plan tiers': 3, 'email campaigns': 2 });
      expect(stripe.requests).toEqual([]);
      const campaign = await t.db
        .selectFrom('email_campaigns')
        .select('status')
        .where('name', '=', 'Demo: November newsletter')
        .executeTakeFirstOrThrow();
      expect(campaign.status).toBe('sending');
      expect((await seedDemo(t.kernel, { userAgent: USER_AGENT })).totalCreated).toBe(0);
    },
    SLOW,
  );
});

describe('seed command arguments', () => {
  it('without --demo: a usage error naming the one data set', async () => {
    await expect(seedCommand([], processIo)).rejects.toThrow(UsageError);
    await expect(seedCommand([], processIo)).rejects.toThrow('--demo');
    await expect(seedCommand(['--demo', 'extra'], processIo)).rejects.toThrow('unexpected argument "extra"');
  });

  it('refuses NODE_ENV=production before touching the database, unless --force', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    // Nothing listens on port 1: reaching the database would fail with another message.
    vi.stubEnv('DATABASE_URL', 'postgres://nobody@127.0.0.1:1/none');
    vi.stubEnv('JWT_SECRET', 'seed-demo-test-secret-0123456789-abcdefghij');
    try {
      const refusal = seedCommand(['--demo'], processIo);
      await expect(refusal).rejects.toThrow(CommandFailure);
      await expect(seedCommand(['--demo'], processIo)).rejects.toThrow(/NODE_ENV=production.*--force/);
      await expect(seedCommand(['--demo', '--force'], processIo)).rejects.toThrow(
        /DATABASE_URL: cannot use the database/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
