import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiResult,
  apiErrorOf,
  createPlatformClient,
  PlatformApiError,
  paginate,
  type PlatformClient,
  requestIdOf,
  unwrap,
} from '../../sdk/src/index.js';
import { createUser, type TestUser } from '../helpers/app.js';
import { signToken } from '../helpers/tokens.js';
import { type ListeningApp, recordingClient, type SentRequest, startListeningApp } from './fixtures.js';

/**
 * The client against the real service over HTTP: the token provider, typed errors and unwrap,
 * Idempotency-Key and retries.
 */

let t: ListeningApp;
let staff: TestUser;
let player: TestUser;
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };

beforeAll(async () => {
  t = await startListeningApp();
  staff = await createUser(t.db, ['users.read', 'ops.panic', 'plans.write', 'site.write', 'site.read']);
  player = await createUser(t.db);
  const admin = createPlatformClient({ baseUrl: t.baseUrl, token: () => staff.token });
  const product = await unwrap(
    admin.POST('/v1/admin/plans/products', { body: { kind: 'credit_pack', name: 'Pack', credits: 100 } }),
  );
  await unwrap(
    admin.POST('/v1/admin/plans/products/{id}/prices', {
      params: { path: { id: product.id } },
      body: { providerPriceId: 'price_sdk_client', currency: 'usd', unitAmount: 100 },
    }),
  );
});
afterAll(async () => {
  await t.close();
});

const REQUEST_ID = /^[0-9a-f-]{36}$/;

/** The refusal a call gets, asserted to be one. */
async function refusal<Result extends ApiResult>(call: Promise<Result>) {
  const result = await call;
  const error = apiErrorOf(result);
  if (error === undefined) throw new Error(`expected a refusal, got ${result.response.status}`);
  expect(error).toBeInstanceOf(PlatformApiError);
  expect(error.requestId).toMatch(REQUEST_ID);
  expect(error.requestId).toBe(requestIdOf(result));
  return error;
}

describe('the token provider', () => {
  it('is asked before every call: a provider that changes its answer calls as each user in turn', async () => {
    const other = await createUser(t.db);
    const tokens = [player.token, other.token];
    let asked = 0;
    const { client, sent } = recordingClient(t, { token: () => tokens[asked++ % 2] });
    const first = await unwrap(client.GET('/v1/me'));
    const second = await unwrap(client.GET('/v1/me'));
    expect([first.id, second.id]).toEqual([player.id, other.id]);
    expect(sent.map((request) => request.authorization)).toEqual([`Bearer ${player.token}`, `Bearer ${other.token}`]);
  });

  it('awaits an asynchronous provider', async () => {
    const client = createPlatformClient({ baseUrl: t.baseUrl, token: async () => player.token });
    expect((await unwrap(client.GET('/v1/me'))).id).toBe(player.id);
  });

  it('answering undefined sends no Authorization: 401 `missing_token`', async () => {
    const { client, sent } = recordingClient(t, { token: () => undefined });
    const error = await refusal(client.GET('/v1/me'));
    expect(error.problem).toEqual({ kind: 'application', status: 401, code: 'missing_token', details: undefined });
    expect(sent[0]!.authorization).toBeNull();
  });

  it('is not asked for an operation that takes no token (`security: []`)', async () => {
    let asked = 0;
    const { client, sent } = recordingClient(t, {
      token: () => {
        asked += 1;
        return player.token;
      },
    });
    await unwrap(client.POST('/v1/public/waitlist', { body: { email: `sdk-${randomUUID()}@example.test` } }));
    expect(asked).toBe(0);
    expect(sent[0]!.authorization).toBeNull();
  });

  it('sends the static headers with every call', async () => {
    const seen: Array<string | null> = [];
    const client = createPlatformClient({
      baseUrl: t.baseUrl,
      token: () => player.token,
      headers: { 'x-client-name': 'sdk-test' },
      fetch: (request) => {
        seen.push(request.headers.get('x-client-name'));
        return fetch(request);
      },
    });
    await unwrap(client.GET('/v1/me'));
    expect(seen).toEqual(['sdk-test']);
  });
});

describe('typed errors', () => {
  const as = (user: TestUser | string): PlatformClient =>
    createPlatformClient({ baseUrl: t.baseUrl, token: () => (typeof user === 'string' ? user : user.token) });

  it('401 `invalid_token`', async () => {
    const forged = await signToken({ secret: 'another-secret-that-is-long-enough-for-hs256-000000' });
    const error = await refusal(as(forged).GET('/v1/me'));
    expect([error.status, error.code, error.problem.kind]).toEqual([401, 'invalid_token', 'application']);
  });

  it('403 `forbidden` with the permission it needs in `details`', async () => {
    const error = await refusal(as(player).GET('/v1/admin/users'));
    expect(error.problem).toEqual({
      kind: 'application',
      status: 403,
      code: 'forbidden',
      details: expect.objectContaining({ perm: 'users.read' }),
    });
    expect(error.details).toEqual(error.problem.details);
  });

  it('404 `not_found`', async () => {
    const error = await refusal(as(staff).GET('/v1/admin/users/{id}', { params: { path: { id: randomUUID() } } }));
    expect([error.status, error.code]).toEqual([404, 'not_found']);
  });

  it('400: the validation body as a `validation` problem with its issues', async () => {
    const error = await refusal(as(staff).GET('/v1/admin/users', { params: { query: { per_page: 1000 } } }));
    expect(error.problem.kind).toBe('validation');
    if (error.problem.kind !== 'validation') return;
    // Narrowed by `kind`: the issues are typed.
    expect(error.problem.issues.map((issue) => issue.path)).toEqual([['per_page']]);
    expect([error.status, error.code]).toEqual([400, 'SchemaError']);
  });

  it('503 `panic_mode`: a `maintenance` problem with level, reason and Retry-After, not retried', async () => {
    const admin = as(staff);
    await unwrap(admin.POST('/v1/admin/ops/panic', { body: { level: 'lockdown', reason: 'sdk test lockdown' } }));
    try {
      const { client, sent } = recordingClient(t, { token: () => player.token });
      const error = await refusal(client.PATCH('/v1/me', { body: { display_name: 'Locked out' } }));
      expect(error.problem).toEqual({
        kind: 'maintenance',
        status: 503,
        code: 'panic_mode',
        level: 'lockdown',
        reason: 'sdk test lockdown',
      });
      expect(error.retryAfter).toBe(30);
      expect(sent).toHaveLength(1);
    } finally {
      await unwrap(admin.POST('/v1/admin/ops/panic', { body: { level: 'off', reason: 'sdk test over' } }));
    }
  });

  it('unwrap answers the data, or throws the refusal as PlatformApiError', async () => {
    const client = as(player);
    expect(await unwrap(client.GET('/v1/me'))).toMatchObject({ id: player.id });
    const thrown = await unwrap(client.GET('/v1/admin/users')).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(PlatformApiError);
    expect(thrown).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringMatching(/^403 forbidden/) });
    // A settled result unwraps too.
    const result = await client.GET('/v1/me');
    expect(requestIdOf(result)).toMatch(REQUEST_ID);
    expect((await unwrap(result)).id).toBe(player.id);
  });
});

describe('Idempotency-Key and retries', () => {
  /** A transport that answers `refusals` in turn (the real answer is still received first), then passes through. */
  function flakyClient(refusals: Array<{ status: number; retryAfter?: string }>, user: TestUser) {
    const sent: SentRequest[] = [];
    const discarded: unknown[] = [];
    const client = createPlatformClient({
      baseUrl: t.baseUrl,
      token: () => user.token,
      retry: { baseDelayMs: 1 },
      fetch: async (request) => {
        sent.push({
          method: request.method,
          url: new URL(request.url),
          authorization: request.headers.get('authorization'),
          idempotencyKey: request.headers.get('idempotency-key'),
        });
        const response = await fetch(request);
        const refused = refusals.shift();
        if (refused === undefined) return response;
        // The call reached the service and took effect; its answer is lost on the way back.
        discarded.push(await response.json());
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': randomUUID() };
        if (refused.retryAfter !== undefined) headers['retry-after'] = refused.retryAfter;
        return new Response(JSON.stringify({ error: refused.status === 429 ? 'rate_limited' : 'unavailable' }), {
          status: refused.status,
          headers,
        });
      },
    });
    return { client, sent, discarded };
  }

  it('a checkout gets a key; its retry after a 503 sends the same key and receives the first checkout', async () => {
    const buyer = await createUser(t.db);
    const { client, sent, discarded } = flakyClient([{ status: 503, retryAfter: '0' }], buyer);
    const result = await client.POST('/v1/me/billing/checkout-session', {
      body: { priceId: 'price_sdk_client', ...urls },
    });
    const checkout = await unwrap(result);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.idempotencyKey).toMatch(REQUEST_ID);
    expect(sent[1]!.idempotencyKey).toBe(sent[0]!.idempotencyKey);
    expect(result.response.headers.get('idempotent-replayed')).toBe('true');
    expect(checkout.id).toBe((discarded[0] as { id: string }).id);
    const made = await t.db
      .selectFrom('billing_checkout_sessions')
      .select('provider_checkout_id')
      .where('user_id', '=', buyer.id)
      .execute();
    expect(made).toEqual([{ provider_checkout_id: checkout.id }]);
  });

  it('each call makes its own key; a key the caller gives is kept', async () => {
    const buyer = await createUser(t.db);
    const { client, sent } = recordingClient(t, { token: () => buyer.token });
    const body = { priceId: 'price_sdk_client', ...urls, quantity: 2 };
    await unwrap(client.POST('/v1/me/billing/checkout-session', { body }));
    await unwrap(client.POST('/v1/me/billing/checkout-session', { body }));
    await unwrap(
      client.POST('/v1/me/billing/checkout-session', { body, params: { header: { 'idempotency-key': 'mine-1' } } }),
    );
    const [first, second, third] = sent.map((request) => request.idempotencyKey);
    expect(first).not.toBe(second);
    expect(third).toBe('mine-1');
  });

  it('a GET answered 429 is sent again, at most `retries` times; the last refusal is returned', async () => {
    const { client, sent } = flakyClient([{ status: 429 }, { status: 429 }, { status: 429 }], player);
    const error = await refusal(client.GET('/v1/me'));
    expect([error.status, error.code]).toEqual([429, 'rate_limited']);
    expect(sent).toHaveLength(3);
  });

  it('a GET answered 503 with Retry-After is sent again and succeeds', async () => {
    const { client, sent } = flakyClient([{ status: 503, retryAfter: '0' }], player);
    expect((await unwrap(client.GET('/v1/me'))).id).toBe(player.id);
    expect(sent).toHaveLength(2);
  });

  it('never sent again: a write without a key, a 503 without Retry-After, a wait past `maxDelayMs`', async () => {
    const write = flakyClient([{ status: 503, retryAfter: '0' }], player);
    expect((await refusal(write.client.PATCH('/v1/me', { body: { display_name: 'Once' } }))).status).toBe(503);
    expect(write.sent).toHaveLength(1);
    const silent = flakyClient([{ status: 503 }], player);
    expect((await refusal(silent.client.GET('/v1/me'))).status).toBe(503);
    expect(silent.sent).toHaveLength(1);
    const long = flakyClient([{ status: 503, retryAfter: '3600' }], player);
    const error = await refusal(long.client.GET('/v1/me'));
    expect(error.retryAfter).toBe(3600);
    expect(long.sent).toHaveLength(1);
  });
});

describe("the README's examples, as written there", () => {
  it('lists the banned users whose email holds a text, every page', async () => {
    const marker = `@readme-${randomUUID().slice(0, 8)}.example.org`;
    const banned = await createUser(t.db, [], { email: `someone${marker}`, status: 'banned' });
    await createUser(t.db, [], { email: `active${marker}` });
    const client = createPlatformClient({ baseUrl: t.baseUrl, token: async () => staff.token });
    const found: string[] = [];
    for await (const user of paginate(client, '/v1/admin/users', {
      params: { query: { status: 'banned', q: marker, per_page: 100 } },
    })) {
      found.push(user.id);
    }
    expect(found).toEqual([banned.id]);
  });

  it('publishes a site settings section: the draft, then the next live version', async () => {
    const client = createPlatformClient({ baseUrl: t.baseUrl, token: async () => staff.token });
    await unwrap(
      client.PUT('/v1/admin/site/settings/{section}', {
        params: { path: { section: 'support' } },
        body: { draft: { email: 'help@example.com', hours: 'Mon-Fri 9-17 CET' } },
      }),
    );
    const { version } = await unwrap(
      client.POST('/v1/admin/site/settings/{section}/publish', {
        params: { path: { section: 'support' } },
        body: { note: 'New support hours' },
      }),
    );
    expect(version).toBe(1);
    const site = await unwrap(client.GET('/v1/public/site'));
    expect(site.settings).toMatchObject({ support: { email: 'help@example.com', hours: 'Mon-Fri 9-17 CET' } });
  });

  it('starts a checkout for a credit pack: one checkout, its payment page URL', async () => {
    const buyer = await createUser(t.db);
    const client = createPlatformClient({ baseUrl: t.baseUrl, token: async () => buyer.token });
    const products = await unwrap(client.GET('/v1/public/products'));
    const pack = products.find((product) => product.kind === 'credit_pack');
    const checkout = await unwrap(
      client.POST('/v1/me/billing/checkout-session', {
        body: {
          priceId: pack!.prices[0]!.priceId,
          quantity: 2,
          successUrl: 'https://play.example.com/store/done',
          cancelUrl: 'https://play.example.com/store',
        },
      }),
    );
    expect(checkout.url).toEqual(expect.stringContaining(checkout.id));
  });
});
