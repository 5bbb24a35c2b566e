import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type Served } from '../cli/cli-process.js';
import { prepareDataDir } from '../helpers/data-dir.js';
import { startGoTrueServer, type GoTrueServer } from '../helpers/gotrue-server.js';
import { signToken, TEST_JWT_SECRET } from '../helpers/tokens.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export interface ServedBehindIdentity {
  served: Served;
  gotrue: GoTrueServer;
  /** Between the service and the identity provider: `proxy.latency(ms)` makes identity reads slow. */
  proxy: TcpProxy;
  /** The served DATA_DIR (its database at DATA_DIR/pglite), readable once the process has exited. */
  dataDir: string;
  /** BOOTSTRAP_OWNER, a user the identity provider knows. */
  owner: string;
  /** The owner's bearer header. */
  ownerHeaders(): Promise<{ authorization: string }>;
  /** Kills the process if a test left it running; closes the peers; removes DATA_DIR. */
  close(): Promise<void>;
}

/**
 * The real `serve` process on a migrated embedded DATA_DIR, its identity provider reached through
 * a proxy a test slows down: the staff identity read (`/v1/admin/users/:id/identity`) then stays
 * in flight while the test sends SIGTERM. `settings` add to the serve's environment. The embedded
 * database on both runs: what is tested is the process, not the store. `beforeServe` writes to the
 * migrated database before the process opens it (work waiting for the instance when it starts).
 */
export async function serveBehindIdentity(
  settings: Record<string, string>,
  beforeServe?: (db: PGlite) => Promise<unknown>,
): Promise<ServedBehindIdentity> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pa-shutdown-'));
  const owner = randomUUID();
  const serviceKey = `service-${randomUUID()}`;
  const gotrue = await startGoTrueServer({ serviceKey, jwtSecret: TEST_JWT_SECRET });
  gotrue.addUser({ id: owner });
  const proxy = await startTcpProxy({ port: Number(new URL(gotrue.url).port) });
  let served: Served | undefined;
  const close = async () => {
    if (served?.child.exitCode === null) served.child.kill('SIGKILL');
    await proxy.close();
    await gotrue.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await prepareDataDir(dataDir);
    if (beforeServe !== undefined) {
      const db = await PGlite.create(join(dataDir, 'pglite'));
      await beforeServe(db).finally(() => db.close());
    }
    served = await serve({
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      BOOTSTRAP_OWNER: owner,
      IDENTITY_ADMIN_URL: proxy.via(gotrue.url),
      IDENTITY_SERVICE_KEY: serviceKey,
      INCIDENT_MONITOR: 'off',
      ...settings,
    });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    served,
    dataDir,
    gotrue,
    proxy,
    owner,
    ownerHeaders: async () => ({
      authorization: `Bearer ${await signToken({ sub: owner, email: 'owner@example.test' })}`,
    }),
    close,
  };
}
