import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

interface Served {
  child: ChildProcessWithoutNullStreams;
  base: string;
  token: string | undefined;
  output: () => string;
}

/** `platform-api serve` as a newcomer runs it: the embedded default, nothing configured. */
function serve(dataDir: string): Promise<Served> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'JWT_SECRET', 'JWKS_URL', 'REDIS_URL', 'BOOTSTRAP_OWNER', 'NODE_ENV']) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const base = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      const curl = /curl -H "Authorization: Bearer (\S+)" (\S+)/.exec(stdout);
      if (base && curl) resolve({ child, base, token: curl[1], output: () => stdout });
    });
  });
}

function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('platform-api serve on the embedded default', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pa-serve-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints an owner token that works on /v1/admin/roles, keeps its secret, and stops cleanly on SIGTERM', async () => {
    const first = await serve(dataDir);
    expect(first.output()).toContain(`curl -H "Authorization: Bearer ${first.token}" ${first.base}/v1/admin/roles`);

    const roles = await fetch(`${first.base}/v1/admin/roles`, { headers: { authorization: `Bearer ${first.token}` } });
    expect(roles.status).toBe(200);
    expect(roles.headers.get('x-request-id')).toBeTruthy();
    const body = (await roles.json()) as { data: unknown[] };
    expect(body.data).toEqual([expect.objectContaining({ key: 'owner', permissions: ['*'], member_count: 1 })]);

    const health = await fetch(`${first.base}/health`);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });

    // The dev secret is made once, readable by the owner only.
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(await stop(first.child)).toBe(0);

    // A restart on the same DATA_DIR keeps the secret and the data: the old token still works.
    const second = await serve(dataDir);
    const again = await fetch(`${second.base}/v1/me/permissions`, { headers: { authorization: `Bearer ${first.token}` } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { permissions: string[] }).permissions).toContain('roles.write');
    expect(await stop(second.child)).toBe(0);
  }, 90_000);
});
