import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './command-line.js';

/**
 * `platform-api config check` (issue 32, part 4): the environment validated as serve reads it,
 * without starting anything; the effective settings with every credential masked; what
 * production still needs. Runs the CLI's dispatcher in this process (test/cli/entry-point.test.ts
 * runs the process itself).
 */

const SECRET = 'config-check-secret-0123456789-abcdefghij';
const PASSWORD = 'Db-Passw0rd-Never-Shown';
const SECRETS = {
  JWT_SECRET: SECRET,
  EMAIL_TOKEN_SECRET: 'config-check-email-token-secret-0123456789',
  IDENTITY_SERVICE_KEY: 'identity-service-key-never-shown',
  RUNTIME_API_KEY: 'runtime-api-key-never-shown',
  STRIPE_SECRET_KEY: 'sk_test_never_shown_123',
  STRIPE_WEBHOOK_SECRET: 'whsec_never_shown_456',
  STORAGE_S3_ACCESS_KEY_ID: 'AKIANEVERSHOWN',
  STORAGE_S3_SECRET_ACCESS_KEY: 's3-secret-access-key-never-shown',
};
/** Everything production asks for, set. */
const PRODUCTION = {
  ...SECRETS,
  NODE_ENV: 'production',
  DATABASE_URL: `postgres://platform:${PASSWORD}@db.internal:5432/platform?sslmode=require&sslpassword=Cert-Pass-Never`,
  REDIS_URL: 'rediss://default:Redis-Pass-Never@cache.internal:6380',
  SMTP_URL: 'smtps://mailer:Smtp-Pass-Never@smtp.example.com:465',
  JWKS_URL: 'https://id.example.com/.well-known/jwks.json?apikey=Jwks-Key-Never',
  IDENTITY_ADMIN_URL: 'https://id.example.com/auth/v1',
  RUNTIME_URL: 'https://runtime.internal',
  STORAGE_S3_BUCKET: 'platform-avatars',
  PUBLIC_BASE_URL: 'https://play.example.com',
  CHECKOUT_ALLOWED_ORIGINS: 'https://play.example.com',
  MAIL_FROM: 'Platform <no-reply@example.com>',
};
const NEVER_SHOWN = [
  ...Object.values(SECRETS),
  PASSWORD,
  'Cert-Pass-Never',
  'Redis-Pass-Never',
  'Smtp-Pass-Never',
  'Jwks-Key-Never',
];

describe('config check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-config-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on the development defaults: valid, every setting with its default, all of production to do, nothing made', async () => {
    const dataDir = join(dir, 'never-made');
    const run = await cliInProcess(['config', 'check'], { DATA_DIR: dataDir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.startsWith('Configuration is valid.\n\nEffective settings:\n')).toBe(true);
    expect(run.stdout).toMatch(/\n {2}PORT +8080 {2}\(default\)\n/);
    expect(run.stdout).toMatch(/\n {2}DATABASE_URL +\(not set\)\n/);
    expect(run.stdout).toContain(
      `JWT_SECRET                       *** (made once in ${join(dataDir, 'jwt-secret')}, not yet)`,
    );
    const needs = run.stdout.slice(run.stdout.indexOf('Production still needs'));
    expect(needs.split('\n')[0]).toBe('Production still needs (12):');
    for (const setting of [
      'NODE_ENV',
      'DATABASE_URL',
      'JWT_SECRET',
      'IDENTITY_ADMIN_URL',
      'REDIS_URL',
      'STRIPE_SECRET_KEY',
    ]) {
      expect(needs).toContain(`\n  - ${setting}: `);
    }
    // No listener, no database, no dev secret: DATA_DIR is not even made.
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a production configuration: every credential masked, URLs keep their host, nothing more needed', async () => {
    const run = await cliInProcess(['config', 'check', '--json'], { ...PRODUCTION, DATA_DIR: join(dir, 'prod') });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    for (const secret of NEVER_SHOWN) expect(run.stdout).not.toContain(secret);
    const report = JSON.parse(run.stdout) as {
      settings: Record<string, { value: string | null; source: string }>;
      production_needs: unknown[];
    };
    expect(report.production_needs).toEqual([]);
    const value = (name: string) => report.settings[name]?.value;
    expect(value('DATABASE_URL')).toBe(
      'postgres://platform:***@db.internal:5432/platform?sslmode=require&sslpassword=***',
    );
    expect(value('REDIS_URL')).toBe('rediss://default:***@cache.internal:6380');
    expect(value('SMTP_URL')).toBe('smtps://mailer:***@smtp.example.com:465');
    expect(value('JWKS_URL')).toBe('https://id.example.com/.well-known/jwks.json?apikey=***');
    for (const name of Object.keys(SECRETS))
      expect(report.settings[name]).toEqual({ value: '***', source: 'environment' });
    expect(report.settings.PORT).toEqual({ value: '8080', source: 'default' });
    expect(report.settings.NODE_ENV).toEqual({ value: 'production', source: 'environment' });
    expect(report.settings.HOST).toEqual({ value: '0.0.0.0', source: 'default' });
    expect(report.settings.DOCS_UI).toEqual({ value: 'on', source: 'default' });
    const docsOff = await cliInProcess(['config', 'check', '--json'], {
      ...PRODUCTION,
      DATA_DIR: join(dir, 'prod'),
      DOCS_UI: 'off',
    });
    expect(JSON.parse(docsOff.stdout).settings.DOCS_UI).toEqual({ value: 'off', source: 'environment' });

    const text = await cliInProcess(['config', 'check'], { ...PRODUCTION, DATA_DIR: join(dir, 'prod') });
    expect(text.code).toBe(0);
    expect(text.stdout.startsWith('Configuration is valid (NODE_ENV=production).\n')).toBe(true);
    expect(text.stdout.endsWith('\nProduction needs nothing more.\n')).toBe(true);
    for (const secret of NEVER_SHOWN) expect(text.stdout).not.toContain(secret);
  });

  it('an invalid setting: the same one line as serve, exit 1, no credential', async () => {
    const cases: Record<string, string>[] = [
      { PORT: 'eighty', DATA_DIR: join(dir, 'bad-port') },
      { NODE_ENV: 'production', DATA_DIR: join(dir, 'bad-prod'), JWT_SECRET: SECRET },
      {
        DATABASE_URL: `postgres://platform:${PASSWORD}@db:5432/p`,
        STRIPE_SECRET_KEY: 'sk_test_never_shown_123',
        JWT_SECRET: SECRET,
      },
    ];
    for (const env of cases) {
      const [check, serve] = await Promise.all([cliInProcess(['config', 'check'], env), cliInProcess(['serve'], env)]);
      expect(check.stderr.startsWith('Configuration error: ')).toBe(true);
      expect(check).toEqual({ code: 1, stdout: '', stderr: serve.stderr });
      expect(serve.code).toBe(1);
      expect(check.stderr).not.toContain(PASSWORD);
    }
  });

  it('--help prints the usage; an unknown option is a usage error', async () => {
    const help = await cliInProcess(['config', 'check', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith('Usage: platform-api config check [--json]\n')).toBe(true);
    const group = await cliInProcess(['config'], {});
    expect(group.code).toBe(1);
    expect(group.stderr.startsWith('"config" needs a subcommand\n\nUsage: platform-api config <subcommand>')).toBe(
      true,
    );
    const unknown = await cliInProcess(['config', 'check', '--verbose'], {});
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown option '--verbose'");
  });
});
