import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { testAuditAction } from '../../helpers/audit-pictures.js';
import { auditOf, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { LAST_OWNER } from '../../helpers/owners.js';

/**
 * Operation 2 `deleteAdminUser` on the embedded (`local`) identity provider: soft and hard
 * deletion with their stored effects, and every documented refusal. The identity provider's
 * 502 lives in identity-provider.test.ts (it needs the GoTrue peer).
 */

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

let t: TestApp;
let deleter: TestUser;

function del(caller: TestUser, id: string, payload?: unknown) {
  return t.request({
    method: 'DELETE',
    url: `/v1/admin/users/${id}`,
    token: caller.token,
    headers: { 'user-agent': 'delete-test' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

const userRow = (id: string) => t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

beforeAll(async () => {
  t = await startTestApp();
  deleter = await createUser(t.db, ['users.delete', 'users.write', 'users.read']);
});

afterAll(async () => {
  await t.close();
});

describe('soft delete', () => {
  it('marks the user deleted, keeps their data, audits, emits users.soft_deleted, and refuses their tokens', async () => {
    const player = await createUser(t.db);
    await t.db
      .insertInto('billing_subscriptions')
      .values({ user_id: player.id, provider: 'local', provider_subscription_id: `s_${player.id}`, status: 'active' })
      .execute();
    const response = await del(deleter, player.id, { reason: 'requested by the player' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const row = await userRow(player.id);
    expect(row).toMatchObject({
      status: 'deleted',
      status_reason: 'requested by the player',
      status_changed_by: deleter.id,
      email: player.email,
    });
    expect(row?.deleted_at).toBeInstanceOf(Date);
    expect(
      await t.db.selectFrom('billing_subscriptions').select('id').where('user_id', '=', player.id).execute(),
    ).toHaveLength(1);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'users.soft_delete',
        actor_id: deleter.id,
        target_type: 'user',
        target_id: player.id,
        reason: 'requested by the player',
        summary: { before: { status: 'active' }, after: { status: 'deleted' } },
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'users.soft_deleted',
          payload: { user_id: player.id },
          actorId: deleter.id,
        }),
      ),
    );
    const refused = await t.request({ method: 'GET', url: '/v1/me', token: player.token });
    expect(refused.json()).toEqual({ error: 'forbidden', details: { reason: 'account_deleted' } });
  });

  it('soft-deletes a banned user; `hard` defaults to false', async () => {
    const player = await createUser(t.db, [], { status: 'banned' });
    expect((await del(deleter, player.id, { reason: 'closing banned account' })).statusCode).toBe(204);
    expect((await userRow(player.id))?.status).toBe('deleted');
  });

  it('422s a user already deleted, and changes nothing', async () => {
    const player = await createUser(t.db, [], { status: 'deleted' });
    const response = await del(deleter, player.id, { reason: 'once more', hard: false });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ error: 'invalid_request', details: { reason: 'the user is already deleted' } });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
  });
});

describe('restore after a staff soft delete (POST /v1/admin/users/{id}/restore)', () => {
  const DAY = 86_400_000;

  function restore(caller: TestUser | undefined, id: string, payload: unknown = { reason: 'deleted by mistake' }) {
    return t.request({
      method: 'POST',
      url: `/v1/admin/users/${id}/restore`,
      ...(caller === undefined ? {} : { token: caller.token }),
      payload: payload as object,
    });
  }

  async function detail(id: string) {
    const response = await t.request({ method: 'GET', url: `/v1/admin/users/${id}`, token: deleter.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  /** The user row, its audit rows and its events: what a refusal must leave as it was. */
  async function stateOf(id: string) {
    const audit = await t.db.selectFrom('audit_log').select(['id']).where('target_id', '=', id).execute();
    const events = await t.db
      .selectFrom('event_outbox')
      .select('id')
      .where(sql<boolean>`payload->>'user_id' = ${id}`)
      .execute();
    return { user: await userRow(id), audit: audit.length, events: events.length };
  }

  async function staffDeleted(status: 'active' | 'banned' = 'active'): Promise<TestUser> {
    const player = await createUser(t.db, [], { status });
    const deleted = await del(deleter, player.id, { reason: 'looked like a spam account' });
    expect(deleted.statusCode, deleted.body).toBe(204);
    return player;
  }

  it('the admin answer says who deleted the account and until when it can be restored; restore brings it back, audited, with its event', async () => {
    const player = await staffDeleted();
    const deletedAt = (await userRow(player.id))!.deleted_at!;
    const before = await detail(player.id);
    expect(before).toMatchObject({
      status: 'deleted',
      deleted_at: deletedAt.toISOString(),
      deletion: { by: 'staff', restorable_until: new Date(deletedAt.getTime() + 30 * DAY).toISOString() },
    });

    const response = await restore(deleter, player.id);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    const row = (await userRow(player.id))!;
    expect(row).toMatchObject({
      status: 'active',
      deleted_at: null,
      status_reason: 'deleted by mistake',
      status_changed_by: deleter.id,
    });
    expect(row.status_changed_at!.getTime()).toBeGreaterThan(deletedAt.getTime());
    // Tokens from before the restore stay refused, as after a self-deletion's: the player signs in anew.
    expect(row.tokens_valid_after?.getTime()).toBe(row.status_changed_at!.getTime());
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(401);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'users.restore',
        actor_id: deleter.id,
        target_type: 'user',
        target_id: player.id,
        reason: 'deleted by mistake',
        summary: {
          before: { status: 'deleted' },
          after: { status: 'active' },
          deleted_by: 'staff',
          restorable_until: new Date(deletedAt.getTime() + 30 * DAY).toISOString(),
        },
      }),
    ]);
    const outbox = await t.db
      .selectFrom('event_outbox')
      .selectAll()
      .where('request_id', '=', requestIdOf(response))
      .execute();
    expect(outbox).toEqual([expect.objectContaining({ name: 'users.restored', payload: { user_id: player.id } })]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'users.restored',
          payload: { user_id: player.id },
          actorId: deleter.id,
        }),
      ),
    );
    expect(await detail(player.id)).toMatchObject({ status: 'active', deleted_at: null, deletion: null });
  });

  it('a banned user soft-deleted is restored banned: the identity provider still bans them', async () => {
    const player = await staffDeleted('banned');
    const response = await restore(deleter, player.id);
    expect(response.statusCode, response.body).toBe(204);
    expect(await userRow(player.id)).toMatchObject({ status: 'banned', deleted_at: null });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'users.restore',
        summary: expect.objectContaining({ before: { status: 'deleted' }, after: { status: 'banned' } }),
      }),
    ]);
    expect((await detail(player.id)).deletion).toBeNull();
  });

  it('422 invalid_state once the grace period has ended, and for an account not deleted; nothing changes', async () => {
    const player = await staffDeleted();
    const deletedAt = new Date(Date.now() - 31 * DAY);
    await t.db.updateTable('users').set({ deleted_at: deletedAt }).where('id', '=', player.id).execute();
    const until = new Date(deletedAt.getTime() + 30 * DAY).toISOString();
    expect((await detail(player.id)).deletion).toEqual({ by: 'staff', restorable_until: until });
    const before = await stateOf(player.id);
    const late = await restore(deleter, player.id);
    expect({ status: late.statusCode, body: late.json() }).toEqual({
      status: 422,
      body: {
        error: 'invalid_state',
        details: {
          reason: 'the grace period in which the deletion could be undone has ended',
          status: 'deleted',
          deleted_by: 'staff',
          restorable_until: until,
        },
      },
    });
    expect(await stateOf(player.id)).toEqual(before);
    expect(await auditOf(t.db, requestIdOf(late))).toEqual([]);

    const active = await createUser(t.db);
    const notDeleted = await restore(deleter, active.id);
    expect({ status: notDeleted.statusCode, body: notDeleted.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_state', details: { reason: 'the account is not deleted', status: 'active' } },
    });
    expect((await detail(active.id)).deletion).toBeNull();
  });

  it('404 unknown, 403 without users.delete or above the caller, 400 bad body, 401 no token; nothing changes', async () => {
    const unknown = await restore(deleter, randomUUID());
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 404, body: { error: 'not_found' } });

    const player = await staffDeleted();
    const before = await stateOf(player.id);
    const reader = await createUser(t.db, ['users.read', 'users.write']);
    const noPerm = await restore(reader, player.id);
    expect({ status: noPerm.statusCode, body: noPerm.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'users.delete' } },
    });
    const badBody = await restore(deleter, player.id, { reason: 'no' });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json()).toEqual(schemaError({ code: 'too_small', path: ['reason'] }));
    const extraKey = await restore(deleter, player.id, { reason: 'deleted by mistake', hard: true });
    expect(extraKey.json()).toEqual(schemaError({ code: 'unrecognized_keys' }));
    const anonymous = await restore(undefined, player.id);
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    expect(await stateOf(player.id)).toEqual(before);

    // Staff who hold more than the deleter: deleted by an owner, not restorable by the deleter.
    const owner = await createUser(t.db, ['*']);
    const senior = await createUser(t.db, ['billing.write']);
    expect((await del(owner, senior.id, { reason: 'left the company' })).statusCode).toBe(204);
    const above = await restore(deleter, senior.id);
    expect({ status: above.statusCode, body: above.json() }).toEqual({
      status: 403,
      body: {
        error: 'forbidden',
        details: { perm: 'billing.write', missing: ['billing.write'], reason: 'the user holds permissions you do not' },
      },
    });
    expect((await userRow(senior.id))?.status).toBe('deleted');
  });
});

describe('hard delete', () => {
  it('removes the user and every row they own in one go, keeps a personal-data-free audit trail', async () => {
    const player = await createUser(t.db, ['users.read'], { email: 'erase.me@example.test' });
    await t.db.updateTable('users').set({ display_name: 'Erase Me' }).where('id', '=', player.id).execute();
    await t.db
      .insertInto('billing_subscriptions')
      .values({ user_id: player.id, provider: 'local', provider_subscription_id: `h_${player.id}`, status: 'active' })
      .execute();
    await t.db
      .insertInto('revoked_sessions')
      .values({ user_id: player.id, session_id: 'x', revoked_by: null })
      .execute();
    // An earlier audit entry about them (holds their name) and one they made (holds their IP).
    const edit = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: deleter.token,
      payload: { display_name: 'Erase Me Too' },
    });
    expect(edit.statusCode).toBe(200);
    await t.db
      .insertInto('audit_log')
      .values({
        actor_id: player.id,
        action: testAuditAction('store.game_update'),
        ip: '203.0.113.9',
        user_agent: 'their-browser',
        summary: '{}',
      })
      .execute();
    // A grant they gave someone else survives, without them as grantor.
    const other = await createUser(t.db);
    const grantRole = await t.db
      .selectFrom('user_roles')
      .select('role_id')
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('user_roles')
      .values({ user_id: other.id, role_id: grantRole.role_id, granted_by: player.id, reason: null, expires_at: null })
      .execute();

    const response = await del(deleter, player.id, { reason: 'GDPR erasure request', hard: true });
    expect(response.statusCode).toBe(204);
    expect(await userRow(player.id)).toBeUndefined();
    for (const table of ['user_roles', 'billing_subscriptions', 'revoked_sessions'] as const) {
      expect(await t.db.selectFrom(table).select('user_id').where('user_id', '=', player.id).execute(), table).toEqual(
        [],
      );
    }
    expect(
      await t.db
        .selectFrom('user_roles')
        .select('granted_by')
        .where('user_id', '=', other.id)
        .where('role_id', '=', grantRole.role_id)
        .executeTakeFirst(),
    ).toEqual({ granted_by: null });

    const [hardDelete] = await auditOf(t.db, requestIdOf(response));
    expect(hardDelete).toMatchObject({
      action: 'users.hard_delete',
      actor_id: deleter.id,
      target_type: 'user',
      target_id: player.id,
      reason: 'GDPR erasure request',
      summary: { previous_status: 'active' },
    });
    const aboutThem = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', player.id)
      .where('action', '=', 'users.update')
      .execute();
    expect(aboutThem.map((row) => row.summary)).toEqual([{ redacted: true }]);
    const byThem = await t.db
      .selectFrom('audit_log')
      .select(['action', 'ip', 'user_agent'])
      .where('actor_id', '=', player.id)
      .execute();
    expect(byThem).toEqual([{ action: 'store.game_update', ip: null, user_agent: null }]);
    const everything = JSON.stringify(
      await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where((eb) => eb.or([eb('target_id', '=', player.id), eb('actor_id', '=', player.id)]))
        .execute(),
    );
    expect(everything).not.toContain('erase.me@example.test');
    expect(everything).not.toContain('Erase Me');
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({ name: 'users.hard_deleted', payload: { user_id: player.id } }),
      ),
    );
  });

  it('a token of the erased account is refused as deleted (403) and never brings the account back', async () => {
    const player = await createUser(t.db);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);
    expect((await del(deleter, player.id, { reason: 'erasure', hard: true })).statusCode).toBe(204);
    expect(await t.db.selectFrom('erased_users').select('id').where('id', '=', player.id).execute()).toEqual([
      { id: player.id },
    ]);
    for (const url of ['/v1/me', '/v1/me/permissions']) {
      const response = await t.request({ method: 'GET', url, token: player.token });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { reason: 'account_deleted' } },
      });
    }
    expect(await userRow(player.id)).toBeUndefined();
    expect(
      await t.db.selectFrom('login_sessions').select('session_id').where('user_id', '=', player.id).execute(),
    ).toEqual([]);
  });

  it('hard-deletes a soft-deleted user', async () => {
    const player = await createUser(t.db, [], { status: 'deleted' });
    expect((await del(deleter, player.id, { reason: 'purge', hard: true })).statusCode).toBe(204);
    expect(await userRow(player.id)).toBeUndefined();
  });

  it('every column named user_id references users with ON DELETE CASCADE (so a hard delete leaves nothing behind)', async () => {
    // The catalog itself, not information_schema: its views take seconds on the embedded database.
    const { rows } = await sql<{ table_name: string; delete_rule: string | null; referenced: string | null }>`
      SELECT c.relname::text AS table_name,
             CASE con.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'r' THEN 'RESTRICT'
                                  WHEN 'a' THEN 'NO ACTION' WHEN 'd' THEN 'SET DEFAULT' END AS delete_rule,
             ref.relname AS referenced
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r'
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        LEFT JOIN pg_constraint con ON con.conrelid = c.oid AND con.contype = 'f' AND con.conkey = ARRAY[a.attnum]
        LEFT JOIN pg_class ref ON ref.oid = con.confrelid
       WHERE a.attname = 'user_id' AND NOT a.attisdropped
       ORDER BY c.relname`.execute(t.db);
    expect(rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['billing_payments', 'credit_ledger', 'email_messages', 'notification_recipients']),
    );
    for (const row of rows) expect(row, row.table_name).toMatchObject({ delete_rule: 'CASCADE', referenced: 'users' });
  });
});

describe('refusals', () => {
  it('404s an unknown user', async () => {
    const response = await del(deleter, randomUUID(), { reason: 'nobody' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found' });
  });

  it('422s deleting yourself, soft or hard', async () => {
    for (const hard of [false, true]) {
      const response = await del(deleter, deleter.id, { reason: 'leaving', hard });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: 'invalid_request',
        details: { reason: 'you cannot delete your own account' },
      });
    }
    expect((await userRow(deleter.id))?.status).toBe('active');
  });

  it('422s deleting the last active owner, soft or hard', async () => {
    const owner = await createUser(t.db);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: owner.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: null, expires_at: null })
      .execute();
    const superuser = await createUser(t.db, ['*']);
    for (const hard of [false, true]) {
      const response = await del(superuser, owner.id, { reason: 'coup attempt', hard });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual(LAST_OWNER);
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    expect((await userRow(owner.id))?.status).toBe('active');
    // The owner stays: the database refuses to remove the last active owner, tests included.
  });

  it('403s a caller without users.delete, or deleting someone holding more than the caller', async () => {
    const writer = await createUser(t.db, ['users.write']);
    const player = await createUser(t.db);
    const refused = await del(writer, player.id, { reason: 'not mine to do' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'users.delete' } });
    const admin = await createUser(t.db, ['users.delete', 'billing.write']);
    const higher = await del(deleter, admin.id, { reason: 'power grab' });
    expect(higher.statusCode).toBe(403);
    expect(higher.json().details.perm).toBe('billing.write');
    expect((await userRow(admin.id))?.status).toBe('active');
  });

  it('400s a missing, short or long reason, a non-boolean hard, unknown keys and no body; nothing changes', async () => {
    const player = await createUser(t.db);
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [{}, { path: ['reason'], code: 'invalid_type' }],
      [{ reason: 'ab' }, { path: ['reason'], code: 'too_small', minimum: 3 }],
      [{ reason: 'x'.repeat(501) }, { path: ['reason'], code: 'too_big', maximum: 500 }],
      [
        { reason: 'valid reason', hard: 'yes' },
        { path: ['hard'], code: 'invalid_type' },
      ],
      [{ reason: 'valid reason', status: 'deleted' }, { code: 'unrecognized_keys' }],
    ];
    for (const [payload, issue] of cases) {
      const response = await del(deleter, player.id, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json(), JSON.stringify(payload)).toEqual(schemaError(issue));
    }
    const noBody = await del(deleter, player.id);
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().error.name).toBe('SchemaError');
    expect((await del(deleter, 'not-a-uuid', { reason: 'valid reason' })).json()).toEqual(
      schemaError({ path: ['id'] }),
    );
    expect((await userRow(player.id))?.status).toBe('active');
  });
});
