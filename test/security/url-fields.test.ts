import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../helpers/app.js';
import { documentedOperations, type JsonSchema, type Operation } from './route-table.js';

/**
 * Fields that take a URL or a storage key, found in the served OpenAPI document (a new one fails
 * the inventory until it is classified here). Where the service redirects to a caller's URL or
 * renders it as a link, `javascript:`, `file:`, `data:` and protocol-relative targets are
 * refused; where it redirects (checkout, billing portal) internal hosts are refused too once the
 * allowed origins are configured, as production does. The service never fetches a caller's URL:
 * every such field is given a loopback trap's address, the checkout is paid and followed to its
 * redirect, and the trap sees nothing. Storage keys cannot leave the store.
 */

let t: Awaited<ReturnType<typeof startTestApp>>;
let trap: { url: string; hits: string[]; close(): Promise<void> };
let storageDir: string;
let operations: Map<string, Operation>;
let player: TestUser;
let staff: TestUser;
let priceId: string;

const ALLOWED_ORIGIN = 'https://game.example';

/**
 * How the service uses each field named or formatted like a URL or key: `redirect` (answers 3xx
 * to it or hands it to the payment provider as one), `link` (shows it for a player to open),
 * `key` (a storage key), `name` (the key of a row of ours: a slug, never resolved as a location),
 * `image` (a container image the Runtime service pulls; the Platform API passes it on, staff only).
 */
const URL_FIELDS: Record<string, 'redirect' | 'link' | 'key' | 'name' | 'image'> = {
  'POST /v1/me/billing/checkout-session successUrl': 'redirect',
  'POST /v1/me/billing/checkout-session cancelUrl': 'redirect',
  'POST /v1/me/billing/portal-session return_url': 'redirect',
  'GET /v1/public/billing/local/portal return_url': 'link',
  'POST /v1/admin/store/games website': 'link',
  'PATCH /v1/admin/store/games/{id} website': 'link',
  'PUT /v1/admin/site/announcements action_url': 'link',
  'POST /v1/admin/notifications/broadcast notification.action_url': 'link',
  'POST /v1/admin/catalog/achievements icon_path': 'link',
  'PATCH /v1/admin/catalog/achievements/{id} icon_path': 'link',
  'POST /v1/me/avatar/confirm key': 'key',
  'POST /v1/me/support attachment_keys': 'key',
  'POST /v1/me/support/{id}/messages attachment_keys': 'key',
  'DELETE /v1/admin/storage/objects key': 'key',
  'GET /v1/admin/storage/objects prefix': 'key',
  'GET /v1/admin/storage/objects/preview key': 'key',
  'GET /v1/public/storage/download key': 'key',
  'PUT /v1/public/storage/upload key': 'key',
  'POST /v1/admin/catalog/achievements key': 'name',
  'POST /v1/admin/email/templates key': 'name',
  'POST /v1/admin/email/campaigns template_key': 'name',
  'PATCH /v1/admin/email/campaigns/{id} template_key': 'name',
  'POST /v1/admin/notifications/broadcast email.template_key': 'name',
  'POST /v1/admin/roles key': 'name',
  'POST /v1/admin/users/bulk/roles role_key': 'name',
  'PUT /v1/admin/plans/rulesets key': 'name',
  'PUT /v1/admin/plans/tiers key': 'name',
  'POST /v1/admin/runtime/nodes/{id}/pull-image image': 'image',
};

const URL_NAME =
  /(^|_|\b)(url|uri|href|link|website|redirect|icon|image|logo|avatar)(_|$)|Url$|Uri$|^key$|_keys?$|^prefix$/i;

function urlFieldsOf(operation: Operation): string[] {
  const found: string[] = [];
  const visit = (schema: JsonSchema | undefined, prefix: string) => {
    if (schema === undefined) return;
    for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) visit(variant, prefix);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const isText = JSON.stringify(property).includes('"string"');
      if (isText && (property.format === 'uri' || URL_NAME.test(name))) found.push(`${prefix}${name}`);
      visit(property, `${prefix}${name}.`);
    }
  };
  visit(operation.body, '');
  for (const parameter of operation.parameters)
    if (parameter.in === 'query' && (parameter.schema.format === 'uri' || URL_NAME.test(parameter.name)))
      found.push(parameter.name);
  return [...new Set(found)].map((field) => `${operation.route} ${field}`);
}

/** Not a web address a player's browser should be sent to. */
const HOSTILE = [
  'javascript:alert(document.cookie)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript://%0aalert(1)',
  'file:///etc/passwd',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'ftp://evil.example/x',
  '//evil.example/x',
  '\\\\evil.example\\x',
];
/** Hosts of the machine or its cloud, refused as redirect targets when origins are allowed. */
const INTERNAL = [
  'http://127.0.0.1/',
  'http://localhost:8080/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'http://0.0.0.0/',
  'http://10.0.0.1/',
];

async function expectStatus(options: InjectOptions & { token?: string }, status: number): Promise<any> {
  const response = await t.request(options);
  expect(response.statusCode, `${options.method} ${options.url}: ${response.body.slice(0, 300)}`).toBe(status);
  return String(response.headers['content-type']).startsWith('application/json') ? response.json() : response.body;
}

const refused = (status: number) => status === 400 || status === 422;

async function startTrap(): Promise<typeof trap> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.writeHead(200).end('trap');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  trap = await startTrap();
  storageDir = mkdtempSync(join(tmpdir(), 'pa-url-fields-'));
  // The trap's origin is allowed, so a checkout to it is made and paid: it must still never be fetched.
  t = await startTestApp({
    config: { storageDir: join(storageDir, 'store'), checkoutAllowedOrigins: [ALLOWED_ORIGIN, trap.url] },
  });
  operations = await documentedOperations(t);
  player = await createUser(t.db);
  staff = await createUser(t.db, ['*']);
  const pack = await expectStatus(
    {
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: { kind: 'credit_pack', name: 'Pack', credits: 10 },
    },
    201,
  );
  priceId = 'price_url_fields';
  await expectStatus(
    {
      method: 'POST',
      url: `/v1/admin/plans/products/${pack.id}/prices`,
      token: staff.token,
      payload: { providerPriceId: priceId, currency: 'usd', unitAmount: 100 },
    },
    201,
  );
});
afterAll(async () => {
  await t?.close();
  await trap?.close();
  rmSync(storageDir, { recursive: true, force: true });
});

describe('the URL-taking fields, from the OpenAPI document', () => {
  it('every field named or formatted as a URL or storage key is classified here', () => {
    const found = [...operations.values()].flatMap(urlFieldsOf).sort();
    expect(found).toEqual(Object.keys(URL_FIELDS).sort());
  });
});

describe('redirect targets', () => {
  const checkout = (urls: { successUrl: string; cancelUrl: string }) =>
    t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { priceId, ...urls },
    });

  it('checkout `successUrl` and `cancelUrl`: non-web and internal targets are refused, each field alone', async () => {
    for (const bad of [
      ...HOSTILE,
      ...INTERNAL,
      'https://evil.example/',
      'https://game.example.evil.example/',
      'https://game.example@evil.example/',
    ]) {
      for (const urls of [
        { successUrl: bad, cancelUrl: `${ALLOWED_ORIGIN}/cancel` },
        { successUrl: `${ALLOWED_ORIGIN}/ok`, cancelUrl: bad },
      ]) {
        const response = await checkout(urls);
        expect(refused(response.statusCode), `${JSON.stringify(urls)} → ${response.statusCode} ${response.body}`).toBe(
          true,
        );
      }
    }
    expect(
      (await checkout({ successUrl: `${ALLOWED_ORIGIN}/ok`, cancelUrl: `${ALLOWED_ORIGIN}/cancel` })).statusCode,
    ).toBe(200);
  });

  it('billing portal `return_url`: non-web and internal targets are refused', async () => {
    for (const bad of [...HOSTILE, ...INTERNAL, 'https://evil.example/']) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/me/billing/portal-session',
        token: player.token,
        payload: { return_url: bad },
      });
      expect(refused(response.statusCode), `${bad} → ${response.statusCode} ${response.body}`).toBe(true);
    }
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/me/billing/portal-session',
        token: player.token,
        payload: { return_url: `${ALLOWED_ORIGIN}/account` },
      },
      200,
    );
  });

  it('the local portal page links only to http(s) `return_url`s', async () => {
    for (const bad of HOSTILE) {
      const response = await t.request({
        method: 'GET',
        url: '/v1/public/billing/local/portal',
        query: { return_url: bad },
      });
      expect(response.statusCode, `${bad} → ${response.body.slice(0, 100)}`).toBe(400);
    }
  });
});

describe('links shown to players', () => {
  it('store game `website`, announcement and broadcast `action_url`: no script, file, data or protocol-relative targets', async () => {
    const game = await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/store/games',
        token: staff.token,
        payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: 'Game' },
      },
      201,
    );
    for (const bad of HOSTILE) {
      const attempts: Array<InjectOptions> = [
        {
          method: 'POST',
          url: '/v1/admin/store/games',
          payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: 'Game', website: bad },
        },
        { method: 'PATCH', url: `/v1/admin/store/games/${game.id}`, payload: { website: bad } },
        { method: 'PUT', url: '/v1/admin/site/announcements', payload: { title: 'News', action_url: bad } },
        {
          method: 'POST',
          url: '/v1/admin/notifications/broadcast',
          payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: bad } },
        },
      ];
      for (const attempt of attempts) {
        const response = await t.request({ ...attempt, token: staff.token });
        expect(
          refused(response.statusCode),
          `${attempt.method} ${attempt.url} ${bad} → ${response.statusCode} ${response.body.slice(0, 120)}`,
        ).toBe(true);
      }
    }
  });

  it('achievement `icon_path`: an asset path or an http(s) URL, never a script or data target', async () => {
    for (const bad of [...HOSTILE, 'data:image/svg+xml,<svg onload=alert(1)>', '/\\evil.example/x.png']) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/catalog/achievements',
        token: staff.token,
        payload: { key: `a-${randomUUID().slice(0, 8)}`, name: 'A', icon_path: bad },
      });
      expect(refused(response.statusCode), `${bad} → ${response.statusCode} ${response.body.slice(0, 120)}`).toBe(true);
    }
    for (const good of ['icons/win.png', '/icons/win.png', 'https://cdn.game.example/icons/win.png']) {
      await expectStatus(
        {
          method: 'POST',
          url: '/v1/admin/catalog/achievements',
          token: staff.token,
          payload: { key: `a-${randomUUID().slice(0, 8)}`, name: 'A', icon_path: good },
        },
        201,
      );
    }
  });

  it('the local portal page links only to allowed origins when they are set (422 otherwise)', async () => {
    for (const bad of [...INTERNAL, 'https://evil.example/']) {
      const response = await t.request({
        method: 'GET',
        url: '/v1/public/billing/local/portal',
        query: { return_url: bad },
      });
      expect({ status: response.statusCode, body: response.json() }, bad).toEqual({
        status: 422,
        body: {
          error: 'invalid_request',
          details: { field: 'return_url', reason: 'the URL is not on an allowed origin' },
        },
      });
    }
    const ok = await t.request({
      method: 'GET',
      url: '/v1/public/billing/local/portal',
      query: { return_url: `${ALLOWED_ORIGIN}/account` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain(`${ALLOWED_ORIGIN}/account`);
  });

  it('broadcast `action_url` refuses backslashes, raw or encoded (a browser reads `/\\evil.example` as `//evil.example`)', async () => {
    for (const bad of [
      '/\\evil.example',
      '/%5Cevil.example',
      '/%5cevil.example/x',
      'https://game.example\\@evil.example/',
    ]) {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/notifications/broadcast',
        token: staff.token,
        payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: bad } },
      });
      expect(response.statusCode, `${bad} → ${response.body.slice(0, 120)}`).toBe(400);
    }
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/notifications/broadcast',
        token: staff.token,
        payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: '/rewards?tab=new' } },
      },
      200,
    );
  });
});

describe('control and separator characters, in every URL field', () => {
  /**
   * The URL parser drops tab, CR and LF and trims controls and spaces, so such URLs passed a
   * parse-based check, were stored, and broke the header or the link they were written into.
   */
  const UNSAFE = {
    'CR LF': '\r\nSet-Cookie: a=b',
    LF: '\n',
    tab: '\t',
    space: ' x',
    DEL: '\u007f',
    'C1 NEL': '\u0085',
    'C1 CSI': '\u009b',
    'U+2028': '\u2028',
    'U+2029': '\u2029',
    NBSP: '\u00a0',
    'ideographic space': '\u3000',
    'zero-width space': '\u200b',
    'bidi override': '\u202e',
    BOM: '\ufeff',
    'form feed': '\f',
    'NUL-less C0': '\u0001',
  };
  const counts = async () => ({
    checkouts: (
      await t.db.selectFrom('billing_checkout_sessions').select('id').where('user_id', '=', player.id).execute()
    ).length,
    games: (await t.db.selectFrom('store_games').select('id').execute()).length,
    announcements: (await t.db.selectFrom('announcements').select('id').execute()).length,
    broadcasts: (await t.db.selectFrom('notification_broadcasts').select('id').execute()).length,
    achievements: (await t.db.selectFrom('catalog_achievements').select('id').execute()).length,
  });

  it('each is refused with the 400 SchemaError naming the field, at the start, middle or end of the URL, and nothing is stored', async () => {
    const game = await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/store/games',
        token: staff.token,
        payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: 'Game' },
      },
      201,
    );
    const achievement = await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/catalog/achievements',
        token: staff.token,
        payload: { key: `a-${randomUUID().slice(0, 8)}`, name: 'A' },
      },
      201,
    );
    const before = await counts();
    const ok = `${ALLOWED_ORIGIN}/ok`;
    for (const [name, character] of Object.entries(UNSAFE)) {
      for (const url of [
        `${ALLOWED_ORIGIN}/a${character}b`,
        `${ALLOWED_ORIGIN}/${character}`,
        `${character}${ALLOWED_ORIGIN}/`,
      ]) {
        const attempts: Array<[InjectOptions & { token?: string }, Array<string | number>]> = [
          [
            {
              method: 'POST',
              url: '/v1/me/billing/checkout-session',
              token: player.token,
              payload: { priceId, successUrl: url, cancelUrl: ok },
            },
            ['successUrl'],
          ],
          [
            {
              method: 'POST',
              url: '/v1/me/billing/checkout-session',
              token: player.token,
              payload: { priceId, successUrl: ok, cancelUrl: url },
            },
            ['cancelUrl'],
          ],
          [
            { method: 'POST', url: '/v1/me/billing/portal-session', token: player.token, payload: { return_url: url } },
            ['return_url'],
          ],
          [{ method: 'GET', url: '/v1/public/billing/local/portal', query: { return_url: url } }, ['return_url']],
          [
            {
              method: 'POST',
              url: '/v1/admin/store/games',
              token: staff.token,
              payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: 'Game', website: url },
            },
            ['website'],
          ],
          [
            { method: 'PATCH', url: `/v1/admin/store/games/${game.id}`, token: staff.token, payload: { website: url } },
            ['website'],
          ],
          [
            {
              method: 'PUT',
              url: '/v1/admin/site/announcements',
              token: staff.token,
              payload: { title: 'News', action_url: url },
            },
            ['action_url'],
          ],
          [
            {
              method: 'POST',
              url: '/v1/admin/notifications/broadcast',
              token: staff.token,
              payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: url } },
            },
            ['notification', 'action_url'],
          ],
          [
            {
              method: 'POST',
              url: '/v1/admin/notifications/broadcast',
              token: staff.token,
              payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: `/a${character}b` } },
            },
            ['notification', 'action_url'],
          ],
          [
            {
              method: 'POST',
              url: '/v1/admin/catalog/achievements',
              token: staff.token,
              payload: { key: `a-${randomUUID().slice(0, 8)}`, name: 'A', icon_path: url },
            },
            ['icon_path'],
          ],
          [
            {
              method: 'PATCH',
              url: `/v1/admin/catalog/achievements/${achievement.id}`,
              token: staff.token,
              payload: { icon_path: url },
            },
            ['icon_path'],
          ],
        ];
        for (const [attempt, path] of attempts) {
          const response = await t.request(attempt);
          const what = `${name}: ${attempt.method} ${attempt.url} ${JSON.stringify(url)} → ${response.statusCode} ${response.body.slice(0, 200)}`;
          expect(response.statusCode, what).toBe(400);
          expect(response.json(), what).toMatchObject({
            success: false,
            error: { name: 'SchemaError', issues: expect.arrayContaining([expect.objectContaining({ path })]) },
          });
        }
      }
    }
    expect(await counts()).toEqual(before);
    const stored = await t.db
      .selectFrom('store_games')
      .select('website')
      .where('id', '=', game.id)
      .executeTakeFirstOrThrow();
    expect(stored.website).toBeNull();
  });

  it('the same characters percent-encoded are plain URLs: accepted, and the pay page redirects to them as given', async () => {
    const encoded = `${ALLOWED_ORIGIN}/done?note=a%0D%0Ab%E2%80%A8c%20d`;
    const made = await expectStatus(
      {
        method: 'POST',
        url: '/v1/me/billing/checkout-session',
        token: player.token,
        payload: { priceId, successUrl: encoded, cancelUrl: `${ALLOWED_ORIGIN}/cancel` },
      },
      200,
    );
    const paid = await t.request({ method: 'POST', url: `/v1/public/billing/local/checkout/${made.id}/pay` });
    expect({ status: paid.statusCode, location: paid.headers.location }).toEqual({ status: 303, location: encoded });
  });

  it('user names and passwords in a URL are refused: `https://game.example@evil.example/` reads as one site and leads to another', async () => {
    for (const url of ['https://game.example@evil.example/', 'https://user:pass@game.example/']) {
      const response = await t.request({
        method: 'PUT',
        url: '/v1/admin/site/announcements',
        token: staff.token,
        payload: { title: 'News', action_url: url },
      });
      expect(response.statusCode, url).toBe(400);
    }
  });
});

describe("the service never fetches a caller's URL", () => {
  it("every URL field given the trap's address, a checkout paid and followed: the trap sees nothing", async () => {
    const at = (path: string) => `${trap.url}${path}`;
    const made = await expectStatus(
      {
        method: 'POST',
        url: '/v1/me/billing/checkout-session',
        token: player.token,
        payload: { priceId, successUrl: at('/success'), cancelUrl: at('/cancel') },
      },
      200,
    );
    const paid = await t.request({ method: 'POST', url: `/v1/public/billing/local/checkout/${made.id}/pay` });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(at('/success'));
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/me/billing/portal-session',
        token: player.token,
        payload: { return_url: at('/portal') },
      },
      200,
    );
    await expectStatus(
      { method: 'GET', url: '/v1/public/billing/local/portal', query: { return_url: at('/page') } },
      200,
    );
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/store/games',
        token: staff.token,
        payload: { slug: `g-${randomUUID().slice(0, 8)}`, title: 'Game', website: at('/website'), status: 'published' },
      },
      201,
    );
    await expectStatus(
      {
        method: 'PUT',
        url: '/v1/admin/site/announcements',
        token: staff.token,
        payload: { title: 'News', action_url: at('/announcement') },
      },
      200,
    );
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/notifications/broadcast',
        token: staff.token,
        payload: { segment: { q: player.id }, notification: { title: 'Hi', action_url: at('/notification') } },
      },
      200,
    );
    await expectStatus(
      {
        method: 'POST',
        url: '/v1/admin/catalog/achievements',
        token: staff.token,
        payload: { key: `a${randomUUID().slice(0, 8)}`, name: 'A', icon_path: at('/icon.png') },
      },
      201,
    );
    // Where they are shown: the public site and store, and the player's notifications.
    for (const url of ['/v1/public/site', '/v1/public/store/games', '/v1/me/notifications'])
      await expectStatus({ method: 'GET', url, token: player.token }, 200);
    // A fetch that never happens has no event to wait for: a while without one is the proof.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(trap.hits).toEqual([]);
  });
});

describe('storage keys stay inside the store', () => {
  const TRAVERSALS = [
    '../outside.txt',
    '../../outside.txt',
    'avatars/../../outside.txt',
    '/etc/passwd',
    '..%2foutside.txt',
    'avatars/..\\..\\outside.txt',
    'avatars/%2e%2e/%2e%2e/outside.txt',
    'avatars/\u0000/x.png',
    '.',
    '..',
    'avatars//x.png',
  ];

  it('staff deletes, lists and previews with traversal keys are refused or find nothing; a file beside the store is untouched', async () => {
    const canary = join(storageDir, 'outside.txt');
    writeFileSync(canary, 'canary');
    mkdirSync(join(storageDir, 'store', 'avatars'), { recursive: true });
    for (const key of TRAVERSALS) {
      const removal = await t.request({
        method: 'DELETE',
        url: '/v1/admin/storage/objects',
        query: { key },
        token: staff.token,
      });
      expect([400, 404], `DELETE ${key} → ${removal.statusCode} ${removal.body}`).toContain(removal.statusCode);
      const list = await t.request({
        method: 'GET',
        url: '/v1/admin/storage/objects',
        query: { prefix: key },
        token: staff.token,
      });
      expect(
        list.statusCode === 400 || (list.statusCode === 200 && list.json().data.length === 0),
        `list ${key} → ${list.statusCode} ${list.body}`,
      ).toBe(true);
      const confirm = await t.request({
        method: 'POST',
        url: '/v1/me/avatar/confirm',
        token: player.token,
        payload: { key },
      });
      expect([400, 404, 422], `confirm ${key} → ${confirm.statusCode} ${confirm.body}`).toContain(confirm.statusCode);
      const download = await t.request({
        method: 'GET',
        url: '/v1/public/storage/download',
        query: { key, expires: String(Math.floor(Date.now() / 1000) + 600), sig: 'x' },
      });
      expect(download.statusCode, `download ${key}`).toBeGreaterThanOrEqual(400);
      expect(download.statusCode, `download ${key}`).toBeLessThan(500);
      const preview = await t.request({
        method: 'GET',
        url: '/v1/admin/storage/objects/preview',
        query: { key },
        token: staff.token,
      });
      expect([400, 404], `preview ${key} → ${preview.statusCode} ${preview.body}`).toContain(preview.statusCode);
      expect(preview.body).not.toContain('canary');
    }
    expect(existsSync(canary)).toBe(true);
  });
});
