import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../helpers/data-dir.js';
import { serve } from './cli-process.js';

/** `platform-api serve` as a newcomer runs it: the embedded default, nothing configured; its printed token and link. */
async function serveEmbedded(dataDir: string) {
  const served = await serve({ DATA_DIR: dataDir });
  const stdout = served.output().stdout;
  const token = /curl -H "Authorization: Bearer (\S+)" /.exec(stdout)?.[1];
  const signInCode = /^Staff console: http:\/\/127\.0\.0\.1:\d+\/admin\/sign-in#code=([A-Za-z0-9_-]{43})$/m.exec(
    stdout,
  )?.[1];
  return { ...served, token, signInCode };
}

/** The console's exchange of a printed code, as the browser makes it. */
async function exchange(base: string, code: string | undefined) {
  const response = await fetch(`${base}/v1/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  return { status: response.status, body: (await response.json()) as { accessToken?: string; error?: string } };
}

describe('platform-api serve on the embedded default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-serve-'));
  // Missing, parents included: serve makes it, its database with it.
  const dataDir = join(dir, 'missing', 'data');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a missing DATA_DIR, prints an owner token and a one-time console link that work on /v1/admin/roles, keeps its secret, and stops cleanly on SIGTERM', async () => {
    const first = await serveEmbedded(dataDir);
    expect(first.output().stdout).toContain(
      `curl -H "Authorization: Bearer ${first.token}" ${first.base}/v1/admin/roles`,
    );

    const roles = await fetch(`${first.base}/v1/admin/roles`, { headers: { authorization: `Bearer ${first.token}` } });
    expect(roles.status).toBe(200);
    expect(roles.headers.get('x-request-id')).toBeTruthy();
    const body = (await roles.json()) as { data: unknown[] };
    expect(body.data).toEqual([expect.objectContaining({ key: 'owner', permissions: ['*'], member_count: 1 })]);

    const health = await fetch(`${first.base}/health`);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    expect(existsSync(join(dataDir, 'pglite'))).toBe(true);

    // The printed console link's code buys an owner token, once.
    expect(first.output().stdout).toContain(`Staff console: ${first.base}/admin/sign-in#code=${first.signInCode}\n`);
    const signedIn = await exchange(first.base, first.signInCode);
    expect(signedIn.status).toBe(200);
    const asOwner = await fetch(`${first.base}/v1/admin/roles`, {
      headers: { authorization: `Bearer ${signedIn.body.accessToken}` },
    });
    expect(asOwner.status).toBe(200);
    expect((await exchange(first.base, first.signInCode)).body).toEqual({ error: 'invalid_sign_in_code' });

    // The dev secret is made once, readable by the owner only.
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(await first.stop()).toBe(0);

    // A restart on the same DATA_DIR keeps the secret and the data: the old token still works.
    const second = await serveEmbedded(dataDir);
    const again = await fetch(`${second.base}/v1/me/permissions`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { permissions: string[] }).permissions).toContain('roles.write');
    // Codes live in the serving process: a restart prints a new link, and the old one is gone with it.
    expect(second.signInCode).not.toBe(first.signInCode);
    expect((await exchange(second.base, first.signInCode)).status).toBe(401);
    expect((await exchange(second.base, second.signInCode)).status).toBe(200);
    expect(await second.stop()).toBe(0);
  }, 90_000);
});

/** The machine's IPv4 addresses other than loopback (0.0.0.0 is every IPv4 interface). */
const outsideAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
    .map((address) => address!.address);

/** Whether anything answers on that host and port (a refused connection is `false`). */
const answers = (host: string, port: string) =>
  fetch(`http://${host}:${port}/health/live`, { signal: AbortSignal.timeout(5_000) }).then(
    (response) => response.status === 200,
    () => false,
  );

describe('platform-api serve: where it listens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-serve-host-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without HOST, development answers on loopback only; HOST=0.0.0.0 opens every interface', async () => {
    await prepareDataDir(dir);
    // The development mode prints an owner token: other machines must not reach it by default.
    const local = await serve({ DATA_DIR: dir, HOST: '' });
    const port = new URL(local.base).port;
    try {
      expect(await answers('127.0.0.1', port)).toBe(true);
      for (const host of outsideAddresses()) expect(await answers(host, port), host).toBe(false);
    } finally {
      expect(await local.stop()).toBe(0);
    }

    const everywhere = await serve({ DATA_DIR: dir, HOST: '0.0.0.0' });
    const open = new URL(everywhere.base).port;
    try {
      for (const host of ['127.0.0.1', ...outsideAddresses()]) expect(await answers(host, open), host).toBe(true);
    } finally {
      expect(await everywhere.stop()).toBe(0);
    }
  }, 90_000);
});
