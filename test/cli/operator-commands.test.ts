import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPGlite } from '../../src/db/database.js';
import { readMigrations } from '../../src/db/migrate.js';
import type { Tables } from '../../src/db/tables.js';
import { prepareDataDir } from '../helpers/data-dir.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cliInProcess } from './command-line.js';

/**
 * The operator's commands that read or change the database (issue 32, part 4): db status,
 * users grant-owner, roles list/show and audit export, run by the CLI's dispatcher in this process
 * against a real embedded data directory, or on the PostgreSQL run (TEST_DATABASE_URL) a
 * PostgreSQL database. test/cli/entry-point.test.ts runs a database command as its own process.
 */

const SECRET = 'operator-commands-secret-0123456789-abcdef';
const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';
const ON_POSTGRES = process.env.TEST_DATABASE_URL !== undefined;
const SLOW = 180_000;

describe('operator commands on a database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-operator-'));
  const dataDir = join(dir, 'data');
  let postgres: TestDatabase | undefined;
  let settings: Record<string, string>;

  /** The test's own handle on the command's database, while no command holds it. */
  async function onDatabase<T>(work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
    if (postgres !== undefined) return work(postgres.database.db);
    const database = await openPGlite(dataDir);
    try {
      return await work(database.db);
    } finally {
      await database.close();
    }
  }

  beforeAll(async () => {
    if (ON_POSTGRES) {
      postgres = await createTestDatabase();
      settings = { DATABASE_URL: postgres.url!, JWT_SECRET: SECRET };
    } else {
      settings = { DATA_DIR: dataDir, JWT_SECRET: SECRET };
      await prepareDataDir(dataDir);
    }
  }, SLOW);
  afterAll(async () => {
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'db status on a database never migrated: every file pending; other commands refused',
    async () => {
      const fresh = { DATA_DIR: join(dir, 'fresh'), JWT_SECRET: SECRET };
      await prepareDataDir(fresh.DATA_DIR, 'empty');
      const files = readMigrations().map((file) => file.name);
      const status = await cliInProcess(['db', 'status', '--json'], fresh);
      expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(status.stdout)).toEqual({ applied: [], pending: files, unknown: [] });

      const roles = await cliInProcess(['roles', 'list'], fresh);
      expect(roles).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `roles list: the database has ${files.length} pending migrations (${files[0]}, …): ` +
          'run "platform-api migrate" first\n',
      });
    },
    SLOW,
  );

  it('every read-only command where DATA_DIR holds no database: says so, exits 1 and creates nothing', async () => {
    const missing = join(dir, 'missing', 'data');
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    const readOnly = [
      ['db', 'status'],
      ['roles', 'list'],
      ['roles', 'show', 'owner'],
      ['audit', 'export'],
    ];
    for (const args of readOnly) {
      for (const where of [missing, bare]) {
        const run = await cliInProcess(args, { DATA_DIR: where, JWT_SECRET: SECRET });
        expect(run, args.join(' ')).toEqual({
          code: 1,
          stdout: '',
          stderr:
            `${args.slice(0, 2).join(' ')}: no embedded database in ${join(where, 'pglite')} (DATA_DIR): ` +
            'nothing to read. "platform-api migrate" or serve makes one\n',
        });
      }
      expect(existsSync(join(dir, 'missing')), args.join(' ')).toBe(false);
      expect(readdirSync(bare), args.join(' ')).toEqual([]);
    }
  });

  it(
    'db status on a migrated database: every file applied, one changed and one unknown flagged',
    async () => {
      const files = readMigrations().map((file) => file.name);
      const status = await cliInProcess(['db', 'status', '--json'], settings);
      expect(status.code, status.stderr).toBe(0);
      const report = JSON.parse(status.stdout);
      expect(report.applied.map((m: { name: string }) => m.name)).toEqual(files);
      expect(report.applied.every((m: { changed: boolean }) => m.changed === false)).toBe(true);
      expect({ pending: report.pending, unknown: report.unknown }).toEqual({ pending: [], unknown: [] });

      const first = files[0]!;
      const checksum = await onDatabase(async (db) => {
        const row = await db
          .selectFrom('schema_migrations')
          .select('checksum')
          .where('name', '=', first)
          .executeTakeFirstOrThrow();
        await db.updateTable('schema_migrations').set({ checksum: 'edited' }).where('name', '=', first).execute();
        await db.insertInto('schema_migrations').values({ name: '9999_from_the_future.sql', checksum: 'x' }).execute();
        return row.checksum;
      });
      try {
        const text = await cliInProcess(['db', 'status'], settings);
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toMatch(new RegExp(`\\n  ${first}  \\S+Z  CHANGED since applied\\n`));
        expect(text.stdout).toContain('Pending: 0\n');
        expect(text.stdout).toMatch(/Applied by a newer release \(no file here\): 1\n {2}9999_from_the_future\.sql /);
        expect(text.stdout.endsWith('1 applied migration file(s) changed: migrate will refuse to run.\n')).toBe(true);
      } finally {
        await onDatabase(async (db) => {
          await db.updateTable('schema_migrations').set({ checksum }).where('name', '=', first).execute();
          await db.deleteFrom('schema_migrations').where('name', '=', '9999_from_the_future.sql').execute();
        });
      }
    },
    SLOW,
  );

  describe('users grant-owner and roles', () => {
    const ada = randomUUID();
    const twin1 = randomUUID();
    const twin2 = randomUUID();
    const expiring = randomUUID();
    const expiringEnd = new Date(Date.now() + 86_400_000);

    beforeAll(async () => {
      await onDatabase(async (db) => {
        await db
          .insertInto('users')
          .values([
            { id: ada, email: 'ada@example.com' },
            { id: twin1, email: 'twin@example.com' },
            { id: twin2, email: 'Twin@Example.com' },
            { id: expiring, email: 'exp@example.com' },
          ])
          .execute();
        // A second active owner first, so the expiring grant below leaves the platform an owner.
        await db.insertInto('user_roles').values({ user_id: twin1, role_id: OWNER_ROLE_ID }).execute();
        await db
          .insertInto('user_roles')
          .values({ user_id: expiring, role_id: OWNER_ROLE_ID, expires_at: expiringEnd, reason: 'trial' })
          .execute();
        const role = await db
          .insertInto('roles')
          .values({ key: 'support', name: 'Support' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('role_permissions')
          .values([
            { role_id: role.id, permission_key: 'users.read' },
            { role_id: role.id, permission_key: 'support.write' },
          ])
          .execute();
        await db.insertInto('user_roles').values({ user_id: ada, role_id: role.id, reason: 'helpdesk' }).execute();
      });
    }, SLOW);

    const grantAudits = (db: Kysely<Tables>, userId: string) =>
      db
        .selectFrom('audit_log')
        .select([
          'actor_id',
          'action',
          'target_type',
          'target_id',
          'reason',
          'user_agent',
          'ip',
          'request_id',
          'summary',
        ])
        .where('target_id', '=', userId)
        .where('action', '=', 'users.role_grant')
        .execute();

    it(
      'grants by email (any case) with its audit row; a second run changes and records nothing',
      async () => {
        const run = await cliInProcess(
          ['users', 'grant-owner', 'ADA@example.COM', '--reason', 'on-call handover'],
          settings,
        );
        expect(run).toEqual({
          code: 0,
          stdout: `Granted the owner role to ${ada} (ada@example.com); audited as users.role_grant.\n`,
          stderr: '',
        });
        const stored = await onDatabase(async (db) => ({
          grant: await db
            .selectFrom('user_roles')
            .select(['expires_at', 'granted_by', 'reason'])
            .where('user_id', '=', ada)
            .where('role_id', '=', OWNER_ROLE_ID)
            .executeTakeFirst(),
          audits: await grantAudits(db, ada),
        }));
        expect(stored.grant).toEqual({ expires_at: null, granted_by: null, reason: 'on-call handover' });
        expect(stored.audits).toHaveLength(1);
        const [audit] = stored.audits;
        expect(audit).toMatchObject({
          actor_id: null,
          action: 'users.role_grant',
          target_type: 'user',
          target_id: ada,
          reason: 'on-call handover',
          ip: null,
          request_id: null,
          summary: { role_key: 'owner', role_id: OWNER_ROLE_ID, expires_at: null },
        });
        expect(audit!.user_agent).toMatch(/^platform-api users grant-owner \(\S+@\S+\)$/);

        const again = await cliInProcess(['users', 'grant-owner', ada], settings);
        expect(again).toEqual({
          code: 0,
          stdout: `${ada} (ada@example.com) already holds the owner role: nothing changed.\n`,
          stderr: '',
        });
        expect(await onDatabase((db) => grantAudits(db, ada))).toHaveLength(1);
      },
      SLOW,
    );

    it(
      'an expiring owner grant loses its end, audited with the end it had',
      async () => {
        const run = await cliInProcess(['users', 'grant-owner', expiring.toUpperCase()], settings);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toBe(
          `Granted the owner role to ${expiring} (exp@example.com) ` +
            `(their grant ending ${expiringEnd.toISOString()} no longer ends); audited as users.role_grant.\n`,
        );
        const audits = await onDatabase((db) => grantAudits(db, expiring));
        expect(audits.map((a) => [a.reason, a.summary])).toEqual([
          [
            'granted with platform-api users grant-owner',
            {
              role_key: 'owner',
              role_id: OWNER_ROLE_ID,
              expires_at: null,
              previous_expires_at: expiringEnd.toISOString(),
            },
          ],
        ]);
      },
      SLOW,
    );

    it(
      'no user, two users or not an id or email: exit 1 and nothing written',
      async () => {
        const before = await onDatabase(
          async (db) =>
            (await db.selectFrom('audit_log').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n,
        );
        const missingId = randomUUID();
        // One after another: the embedded database is opened by one command at a time.
        const noEmail = await cliInProcess(['users', 'grant-owner', 'nobody@example.com'], settings);
        const noId = await cliInProcess(['users', 'grant-owner', missingId], settings);
        const twins = await cliInProcess(['users', 'grant-owner', 'twin@example.com'], settings);
        const neither = await cliInProcess(['users', 'grant-owner', 'bob'], settings);
        expect(noEmail).toEqual({
          code: 1,
          stdout: '',
          stderr: 'users grant-owner: no user has the email nobody@example.com\n',
        });
        expect(noId).toEqual({ code: 1, stdout: '', stderr: `users grant-owner: no user has the id ${missingId}\n` });
        expect(twins).toEqual({
          code: 1,
          stdout: '',
          stderr: "users grant-owner: more than one user has the email twin@example.com: give the user's id\n",
        });
        expect(neither.code).toBe(1);
        expect(
          neither.stderr.startsWith(
            '"bob" is neither a user id (uuid) nor an email\n\nUsage: platform-api users grant-owner',
          ),
        ).toBe(true);
        const after = await onDatabase(
          async (db) =>
            (await db.selectFrom('audit_log').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n,
        );
        expect(after).toBe(before);
      },
      SLOW,
    );

    it(
      'roles list and roles show: counts, permissions and members',
      async () => {
        const list = await cliInProcess(['roles', 'list', '--json'], settings);
        expect(list.code, list.stderr).toBe(0);
        expect(JSON.parse(list.stdout)).toEqual([
          { key: 'owner', name: 'Owner', protected: true, member_count: 3, permission_count: 1 },
          { key: 'support', name: 'Support', protected: false, member_count: 1, permission_count: 2 },
        ]);
        const text = await cliInProcess(['roles', 'list'], settings);
        expect(text.stdout).toBe(
          'KEY      NAME     MEMBERS  PERMISSIONS\n' +
            'owner    Owner    3        1            protected\n' +
            'support  Support  1        2\n',
        );

        const show = await cliInProcess(['roles', 'show', 'support'], settings);
        expect(show.code, show.stderr).toBe(0);
        expect(show.stdout).toContain(
          'support: Support\n\nPermissions (2):\n  support.write\n  users.read\n\nMembers (1 active, 1 granted):\n',
        );
        expect(show.stdout).toMatch(new RegExp(`\\n {2}${ada} +ada@example\\.com +active +\\S+Z +never +helpdesk\\n$`));
        const owner = JSON.parse((await cliInProcess(['roles', 'show', 'owner', '--json'], settings)).stdout);
        expect(owner.permissions).toEqual(['*']);
        expect(owner.members.map((m: { user_id: string }) => m.user_id).sort()).toEqual([ada, expiring, twin1].sort());

        const missing = await cliInProcess(['roles', 'show', 'nosuch'], settings);
        expect(missing).toEqual({
          code: 1,
          stdout: '',
          stderr: 'roles show: no role has the key "nosuch" (see "platform-api roles list")\n',
        });
      },
      SLOW,
    );
  });

  describe('audit export', () => {
    const base = Date.parse('2020-03-01T00:00:00Z');
    /** 23 entries in the window (ties included), one before it, one at its end (excluded). */
    const inWindow: Array<{ id: string; at: string }> = [];

    beforeAll(async () => {
      const at = (ms: number, micros: number) =>
        `${new Date(base + ms).toISOString().slice(0, 19)}.${String((ms % 1000) * 1000 + micros).padStart(6, '0')}Z`;
      const rows: Array<{ id: string; at: string; reason: string | null; user_agent?: string }> = [];
      for (let i = 0; i < 20; i++) rows.push({ id: randomUUID(), at: at(i * 10, 1), reason: `entry ${i}` });
      // Three entries in one microsecond, and one a microsecond later: the cursor must not lose or repeat them.
      const tie = at(500, 7);
      for (let i = 0; i < 3; i++) rows.push({ id: randomUUID(), at: tie, reason: 'tie, "quoted"\nsecond line' });
      rows.push({ id: randomUUID(), at: at(500, 8), reason: '=HYPERLINK("http://x")', user_agent: 'curl/8' });
      inWindow.push(...rows.map(({ id, at }) => ({ id, at })));
      const outside = [
        { id: randomUUID(), at: '2020-02-29T23:59:59.999999Z', reason: 'before' },
        { id: randomUUID(), at: '2020-03-01T01:00:00.000000Z', reason: 'at the end' },
      ];
      await onDatabase(async (db) => {
        for (const row of [...rows, ...outside]) {
          await sql`INSERT INTO audit_log (id, created_at, action, target_type, target_id, reason, user_agent, summary)
                    VALUES (${row.id}::uuid, ${row.at}::timestamptz, 'test.export', 'thing', ${row.id}, ${row.reason},
                            ${'user_agent' in row ? (row.user_agent ?? null) : null}, ${JSON.stringify({ n: 1 })}::jsonb)`.execute(
            db,
          );
        }
      });
      inWindow.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1));
    }, SLOW);

    const window = ['--since', '2020-03-01', '--until', '2020-03-01T02:00:00+01:00'];

    it(
      'jsonl in batches: every entry of the window once, oldest first, exact times; progress on stderr',
      async () => {
        const run = await cliInProcess(['audit', 'export', ...window, '--batch-size', '4'], settings);
        expect(run.code, run.stderr).toBe(0);
        const lines = run.stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(lines.map((l) => [l.id, l.created_at])).toEqual(inWindow.map((e) => [e.id, e.at]));
        expect(Object.keys(lines[0])).toEqual([
          'id',
          'created_at',
          'actor_id',
          'actor_email',
          'action',
          'target_type',
          'target_id',
          'request_id',
          'ip',
          'user_agent',
          'reason',
          'summary',
        ]);
        expect(lines[0].summary).toEqual({ n: 1 });
        // Not a terminal: no bar, a closing line with the count.
        expect(run.stderr).toMatch(/^audit export: 24 entries in \d+\.\d s\n$/);
      },
      SLOW,
    );

    it(
      'csv: a header, quoted fields, formulas defused, summary as JSON',
      async () => {
        const run = await cliInProcess(
          ['audit', 'export', ...window, '--format', 'csv', '--batch-size', '5'],
          settings,
        );
        expect(run.code, run.stderr).toBe(0);
        const [header, first] = run.stdout.split('\n');
        expect(header).toBe(
          'id,created_at,actor_id,actor_email,action,target_type,target_id,request_id,ip,user_agent,reason,summary',
        );
        expect(first).toBe(
          `${inWindow[0]!.id},${inWindow[0]!.at},,,test.export,thing,${inWindow[0]!.id},,,,entry 0,"{""n"":1}"`,
        );
        expect(run.stdout.split('"tie, ""quoted""\nsecond line"').length - 1).toBe(3);
        expect(run.stdout).toContain(`,curl/8,"'=HYPERLINK(""http://x"")","{""n"":1}"\n`);
        expect(run.stdout.split('test.export').length - 1).toBe(24);
      },
      SLOW,
    );

    it(
      'usage errors: exit 1 with the usage, nothing on stdout',
      async () => {
        const [format, since, order] = await Promise.all([
          cliInProcess(['audit', 'export', '--format', 'xml'], settings),
          cliInProcess(['audit', 'export', '--since', '2020-03-01T00:00:00'], settings),
          cliInProcess(['audit', 'export', '--since', '2021-01-01', '--until', '2020-01-01'], settings),
        ]);
        const usage = 'Usage: platform-api audit export';
        expect(format.stderr.startsWith(`--format must be jsonl or csv, got "xml"\n\n${usage}`)).toBe(true);
        expect(since.stderr.startsWith('--since must be an ISO 8601 time with a zone')).toBe(true);
        expect(order.stderr.startsWith(`--since must not be after --until\n\n${usage}`)).toBe(true);
        for (const run of [format, since, order])
          expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
      },
      SLOW,
    );
  });
});
