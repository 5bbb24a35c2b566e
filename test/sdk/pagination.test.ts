import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformApiError, paginate, unwrap } from '../../sdk/src/index.js';
import type { LocalStorage } from '../../src/adapters/storage/local.js';
import { createUser, type TestUser } from '../helpers/app.js';
import { type ListeningApp, recordingClient, startListeningApp } from './fixtures.js';

/**
 * `paginate` over each list shape the API answers, against the real service: offset pages with a
 * total (the list envelope), cursor pages, offset pages without a total, limit/offset, and a bare
 * array. Each asserts the items and the requests it took to read them.
 */

let t: ListeningApp;
let staff: TestUser;
let storageDir: string;

beforeAll(async () => {
  storageDir = mkdtempSync(join(tmpdir(), 'pa-sdk-pages-'));
  t = await startListeningApp({ config: { storageDir } });
  staff = await createUser(t.db, [
    'users.read',
    'ops.panic',
    'plans.write',
    'roles.read',
    'billing.write',
    'storage.read',
  ]);
});
afterAll(async () => {
  await t.close();
  rmSync(storageDir, { recursive: true, force: true });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('paginate', () => {
  it('offset pages `{ data, meta: { page, per_page, total } }`: every user a filter matches, page after page', async () => {
    const marker = `pg${randomUUID().slice(0, 8)}`;
    const banned = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createUser(t.db, [], { email: `${marker}-b${i}@example.test`, status: 'banned' }),
      ),
    );
    // Same text, another status: the filter keeps them out of every page.
    for (let i = 0; i < 3; i++) await createUser(t.db, [], { email: `${marker}-a${i}@example.test` });
    const { client, sent } = recordingClient(t, { token: () => staff.token });

    const users = await collect(
      paginate(client, '/v1/admin/users', { params: { query: { q: marker, status: 'banned', per_page: 2 } } }),
    );

    expect(users.map((user) => user.id).sort()).toEqual(banned.map((user) => user.id).sort());
    expect(users.every((user) => user.status === 'banned')).toBe(true);
    // 2 + 2 + 1: the total says the third page is the last, so no fourth is asked for.
    expect(sent.map((request) => Object.fromEntries(request.url.searchParams))).toEqual([
      { q: marker, status: 'banned', per_page: '2' },
      { q: marker, status: 'banned', per_page: '2', page: '2' },
      { q: marker, status: 'banned', per_page: '2', page: '3' },
    ]);
  });

  it('cursor pages `{ data, meta: { limit, next_cursor } }`: the game session history, newest first', async () => {
    const player = await createUser(t.db);
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await t.db
      .insertInto('game_sessions')
      .values(
        ids.map((id, i) => ({
          id,
          user_id: player.id,
          game_id: null,
          game_slug: 'a-game',
          game_title: 'A game',
          pool_id: null,
          node_id: null,
          status: 'failed' as const,
          end_reason: 'start_failed' as const,
          created_at: new Date(Date.UTC(2024, 4, 1, 10, 0, i)),
          ended_at: new Date(Date.UTC(2024, 4, 1, 10, 0, i, 500)),
        })),
      )
      .execute();
    const { client, sent } = recordingClient(t, { token: () => player.token });

    const sessions = await collect(paginate(client, '/v1/me/game-sessions', { params: { query: { limit: 2 } } }));

    expect(sessions.map((session) => session.id)).toEqual([...ids].reverse());
    const queries = sent.map((request) => Object.fromEntries(request.url.searchParams));
    expect(queries.map((query) => query.limit)).toEqual(['2', '2', '2']);
    expect(queries[0]!.cursor).toBeUndefined();
    expect(queries[1]!.cursor).toEqual(expect.any(String));
    expect(queries[2]!.cursor).not.toBe(queries[1]!.cursor);
  });

  it('the list envelope on a list that paged with limit/offset before: every maintenance level change', async () => {
    const admin = createPlatformClient({ baseUrl: t.baseUrl, token: () => staff.token });
    const levels = ['degraded', 'off', 'lockdown', 'off', 'degraded', 'off'] as const;
    for (const level of levels) {
      await unwrap(admin.POST('/v1/admin/ops/panic', { body: { level, reason: `sdk pagination ${level}` } }));
    }
    const { client, sent } = recordingClient(t, { token: () => staff.token });

    const changes = await collect(
      paginate(client, '/v1/admin/ops/incidents', { params: { query: { per_page: 4, sort: 'created_at:asc' } } }),
    );

    expect(changes.map((change) => change.level)).toEqual([...levels]);
    // 4 + 2: the total says the second page is the last.
    expect(sent.map((request) => Object.fromEntries(request.url.searchParams))).toEqual([
      { per_page: '4', sort: 'created_at:asc' },
      { per_page: '4', sort: 'created_at:asc', page: '2' },
    ]);
  });

  it('limit/offset `{ data, meta: { prefix, limit, offset } }`: every stored object under a prefix', async () => {
    const store = t.kernel.storage as LocalStorage;
    const keys = ['sdk-pages/a.txt', 'sdk-pages/b.txt', 'sdk-pages/c.txt', 'sdk-pages/d.txt', 'sdk-pages/e.txt'];
    for (const key of keys) await store.write(key, Readable.from([Buffer.from(key)]), 100);
    await store.write('elsewhere/f.txt', Readable.from([Buffer.from('f')]), 100);
    const { client, sent } = recordingClient(t, { token: () => staff.token });

    const objects = await collect(
      paginate(client, '/v1/admin/storage/objects', { params: { query: { prefix: 'sdk-pages/', limit: 2 } } }),
    );

    expect(objects.map((object) => object.key)).toEqual(keys);
    // No total: 2 + 2 + 1, and the short third page is the last.
    expect(sent.map((request) => request.url.searchParams.get('offset'))).toEqual([null, '2', '4']);
  });

  it('offset pages without a total `{ data, meta: { page, per_page } }`: a short page is the last', async () => {
    const player = await createUser(t.db);
    const admin = createPlatformClient({ baseUrl: t.baseUrl, token: () => staff.token });
    for (const amount of [10, 20, 30]) {
      await unwrap(
        admin.POST('/v1/admin/billing/credits/grant', { body: { user_id: player.id, amount, reason: 'sdk pages' } }),
      );
    }
    const { client, sent } = recordingClient(t, { token: () => player.token });

    const entries = await collect(paginate(client, '/v1/me/billing/ledger', { params: { query: { per_page: 2 } } }));

    expect(entries.map((entry) => entry.amount).sort()).toEqual([10, 20, 30]);
    expect(sent.map((request) => request.url.searchParams.get('page'))).toEqual([null, '2']);
  });

  it('a bare array: the public products, in one request', async () => {
    const admin = createPlatformClient({ baseUrl: t.baseUrl, token: () => staff.token });
    const names = ['Small pack', 'Large pack', 'Huge pack'];
    for (const [i, name] of names.entries()) {
      const product = await unwrap(
        admin.POST('/v1/admin/plans/products', { body: { kind: 'credit_pack', name, credits: 100 * (i + 1) } }),
      );
      await unwrap(
        admin.POST('/v1/admin/plans/products/{id}/prices', {
          params: { path: { id: product.id } },
          body: { providerPriceId: `price_sdk_pages_${i}`, currency: 'usd', unitAmount: 100 * (i + 1) },
        }),
      );
    }
    const { client, sent } = recordingClient(t);

    const products = await collect(paginate(client, '/v1/public/products'));

    expect(products.map((product) => product.name).sort()).toEqual([...names].sort());
    expect(sent).toHaveLength(1);
  });

  it('`{ data }` with no paging meta: one page', async () => {
    const { client, sent } = recordingClient(t, { token: () => staff.token });
    const alerts = await collect(paginate(client, '/v1/admin/alerts'));
    expect(alerts.map((alert) => alert.name)).toContain('panic_mode_changed');
    expect(sent).toHaveLength(1);
  });

  it('a refused page throws PlatformApiError', async () => {
    const player = await createUser(t.db);
    const client = createPlatformClient({ baseUrl: t.baseUrl, token: () => player.token });
    const thrown = await collect(paginate(client, '/v1/admin/users')).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(PlatformApiError);
    expect(thrown).toMatchObject({ status: 403, code: 'forbidden' });
  });
});
