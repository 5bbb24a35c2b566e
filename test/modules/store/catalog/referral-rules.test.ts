import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { rowCount } from '../../../helpers/stored-state.js';

/**
 * The referral ruleset (GET and PUT /v1/admin/catalog/referral-rules): one row for the platform,
 * replaced as a whole, validated, audited with the changed fields, versioned so a stale console
 * cannot overwrite a newer change. Tests run in order on one database: each builds on the last.
 */

const URL = '/v1/admin/catalog/referral-rules';
const USER_AGENT = 'referral-test/1.0';
type Db = TestApp['db'];

const stored = (db: Db) => db.selectFrom('catalog_referral_rules').selectAll().executeTakeFirstOrThrow();

const FULL = {
  referrer_reward_credits: 500,
  referee_reward_credits: 250,
  qualifying_event: 'first_purchase',
  qualify_within_days: 30,
  max_rewards_per_referrer: 20,
  is_active: true,
} as const;

describe('referral rules', () => {
  let t: TestApp;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['content.write']);
    reader = await createUser(t.db, ['content.read']);
    outsider = await createUser(t.db, ['plans.write', 'store.read']);
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (user: TestUser | null = reader) => t.request({ method: 'GET', url: URL, token: user?.token });
  const put = (payload: unknown, user: TestUser | null = editor) =>
    t.request({
      method: 'PUT',
      url: URL,
      token: user?.token,
      headers: { 'user-agent': USER_AGENT },
      payload: payload as object,
    });

  /** What a refusal must leave as it was: the ruleset, and the audit log's size. */
  const rulesState = async () => ({ rules: await stored(t.db), audit: await rowCount(t.db, 'audit_log') });

  it('starts inactive with no rewards, version 0, never saved', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      referrer_reward_credits: 0,
      referee_reward_credits: 0,
      qualifying_event: 'signup',
      qualify_within_days: null,
      max_rewards_per_referrer: null,
      is_active: false,
      version: 0,
      updated_by: null,
      updated_at: null,
    });
  });

  it('replaces the ruleset, answers it with version 1, and audits the changed fields', async () => {
    const response = await put({ ...FULL, expected_version: 0 });
    expect(response.statusCode).toBe(200);
    const row = await stored(t.db);
    expect(row).toEqual({ singleton: true, ...FULL, version: 1, updated_by: editor.id, updated_at: expect.any(Date) });
    expect(response.json()).toEqual({
      ...FULL,
      version: 1,
      updated_by: editor.id,
      updated_at: row.updated_at!.toISOString(),
    });
    expect((await get()).json()).toEqual(response.json());
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      {
        id: expect.any(String),
        created_at: expect.any(Date),
        actor_id: editor.id,
        action: 'catalog.referral_rules.update',
        target_type: 'referral_rules',
        target_id: 'referral_rules',
        request_id: requestIdOf(response),
        ip: '127.0.0.1',
        user_agent: USER_AGENT,
        reason: null,
        summary: {
          version: 1,
          before: {
            referrer_reward_credits: 0,
            referee_reward_credits: 0,
            qualifying_event: 'signup',
            qualify_within_days: null,
            max_rewards_per_referrer: null,
            is_active: false,
          },
          after: {
            referrer_reward_credits: 500,
            referee_reward_credits: 250,
            qualifying_event: 'first_purchase',
            qualify_within_days: 30,
            max_rewards_per_referrer: 20,
            is_active: true,
          },
        },
      },
    ]);
  });

  it('writes nothing and keeps the version when the ruleset is sent unchanged', async () => {
    const before = await stored(t.db);
    const response = await put(FULL);
    expect(response.statusCode).toBe(200);
    expect(response.json().version).toBe(1);
    expect(await stored(t.db)).toEqual(before);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
  });

  it('refuses a change based on an older version with 409 conflict, changing nothing', async () => {
    await expectRefusedUnchanged(
      rulesState,
      () => put({ ...FULL, referee_reward_credits: 1, expected_version: 0 }),
      409,
      {
        error: 'conflict',
        details: { reason: 'referral rules changed since they were read', current_version: 1 },
      },
    );
  });

  it('resets omitted limits to "no limit" (PUT replaces the whole ruleset) and audits only what changed', async () => {
    const response = await put({
      referrer_reward_credits: 500,
      referee_reward_credits: 250,
      qualifying_event: 'first_purchase',
      is_active: true,
      expected_version: 1,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ qualify_within_days: null, max_rewards_per_referrer: null, version: 2 });
    expect(await stored(t.db)).toMatchObject({ qualify_within_days: null, max_rewards_per_referrer: null, version: 2 });
    const [audit] = await auditOf(t.db, requestIdOf(response));
    expect(audit?.summary).toEqual({
      version: 2,
      before: { qualify_within_days: 30, max_rewards_per_referrer: 20 },
      after: { qualify_within_days: null, max_rewards_per_referrer: null },
    });
  });

  it('refuses an active programme that rewards nobody with 422 invalid_request, changing nothing', async () => {
    await expectRefusedUnchanged(
      rulesState,
      () => put({ ...FULL, referrer_reward_credits: 0, referee_reward_credits: 0 }),
      422,
      {
        error: 'invalid_request',
        details: { reason: 'an active referral programme must reward the referrer or the referee' },
      },
    );
  });

  it('accepts an inactive programme without rewards, and every bound at its limit', async () => {
    const off = await put({ ...FULL, referrer_reward_credits: 0, referee_reward_credits: 0, is_active: false });
    expect(off.statusCode).toBe(200);
    expect(await stored(t.db)).toMatchObject({
      referrer_reward_credits: 0,
      referee_reward_credits: 0,
      is_active: false,
    });
    const top = {
      referrer_reward_credits: 1_000_000,
      referee_reward_credits: 1_000_000,
      qualifying_event: 'signup',
      qualify_within_days: 365,
      max_rewards_per_referrer: 1_000_000,
      is_active: true,
    };
    expect((await put(top)).statusCode).toBe(200);
    expect(await stored(t.db)).toMatchObject(top);
    const low = { ...top, qualify_within_days: 1, max_rewards_per_referrer: 1 };
    expect((await put(low)).statusCode).toBe(200);
    expect(await stored(t.db)).toMatchObject(low);
  });

  it.each([
    {
      name: 'referrer_reward_credits -1',
      body: { ...FULL, referrer_reward_credits: -1 },
      issue: { path: ['referrer_reward_credits'], code: 'too_small', minimum: 0 },
    },
    {
      name: 'referrer_reward_credits 1000001',
      body: { ...FULL, referrer_reward_credits: 1_000_001 },
      issue: { path: ['referrer_reward_credits'], code: 'too_big', maximum: 1_000_000 },
    },
    {
      name: 'referee_reward_credits -1',
      body: { ...FULL, referee_reward_credits: -1 },
      issue: { path: ['referee_reward_credits'], code: 'too_small', minimum: 0 },
    },
    {
      name: 'referee_reward_credits 1000001',
      body: { ...FULL, referee_reward_credits: 1_000_001 },
      issue: { path: ['referee_reward_credits'], code: 'too_big', maximum: 1_000_000 },
    },
    {
      name: 'fractional credits',
      body: { ...FULL, referee_reward_credits: 2.5 },
      issue: { path: ['referee_reward_credits'], code: 'invalid_type', expected: 'int' },
    },
    {
      name: 'an unknown qualifying_event',
      body: { ...FULL, qualifying_event: 'first_login' },
      issue: { path: ['qualifying_event'], code: 'invalid_value' },
    },
    {
      name: 'qualify_within_days 0',
      body: { ...FULL, qualify_within_days: 0 },
      issue: { path: ['qualify_within_days'], code: 'too_small', minimum: 1 },
    },
    {
      name: 'qualify_within_days 366',
      body: { ...FULL, qualify_within_days: 366 },
      issue: { path: ['qualify_within_days'], code: 'too_big', maximum: 365 },
    },
    {
      name: 'max_rewards_per_referrer 0',
      body: { ...FULL, max_rewards_per_referrer: 0 },
      issue: { path: ['max_rewards_per_referrer'], code: 'too_small', minimum: 1 },
    },
    {
      name: 'max_rewards_per_referrer 1000001',
      body: { ...FULL, max_rewards_per_referrer: 1_000_001 },
      issue: { path: ['max_rewards_per_referrer'], code: 'too_big', maximum: 1_000_000 },
    },
    {
      name: 'no is_active',
      body: { ...FULL, is_active: undefined },
      issue: { path: ['is_active'], code: 'invalid_type' },
    },
    {
      name: 'no referrer reward',
      body: { ...FULL, referrer_reward_credits: undefined },
      issue: { path: ['referrer_reward_credits'], code: 'invalid_type' },
    },
    {
      name: 'a negative expected_version',
      body: { ...FULL, expected_version: -1 },
      issue: { path: ['expected_version'], code: 'too_small', minimum: 0 },
    },
    { name: 'an unknown field', body: { ...FULL, bonus: 5 }, issue: { code: 'unrecognized_keys', keys: ['bonus'] } },
  ])('refuses $name with 400 SchemaError, changing nothing', async ({ body, issue }) => {
    await expectRefusedUnchanged(rulesState, () => put(body), 400, schemaError(issue));
  });

  it('needs content.read to read and content.write to replace (401 without a token)', async () => {
    await expectRefusedUnchanged(rulesState, () => get(null), 401, { error: 'missing_token' });
    await expectRefusedUnchanged(rulesState, () => put(FULL, null), 401, { error: 'missing_token' });
    await expectRefusedUnchanged(rulesState, () => get(outsider), 403, {
      error: 'forbidden',
      details: { perm: 'content.read' },
    });
    await expectRefusedUnchanged(rulesState, () => put(FULL, outsider), 403, {
      error: 'forbidden',
      details: { perm: 'content.write' },
    });
    await expectRefusedUnchanged(rulesState, () => put(FULL, reader), 403, {
      error: 'forbidden',
      details: { perm: 'content.write' },
    });
  });
});
