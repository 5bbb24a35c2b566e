import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityAccount, IdentityProvider } from '../../src/adapters/identity/index.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { auditOf, requestIdOf } from '../helpers/expectations.js';
import { confirm, mailedCode, start } from '../helpers/account-deletion.js';
import { activeOwners, LAST_OWNER, ownersExactly } from '../helpers/owners.js';
import { RELIABILITY_FULL } from './fixtures.js';

/**
 * Two requests at once, from two instances sharing the database, each taking owner rights from
 * one of the last two owners (on PostgreSQL they really run at once; on the embedded database
 * they queue and the same end state must hold): exactly one goes through, the other is refused
 * (the documented 422, or a bulk's per-user 23514) and changes nothing, and exactly one active
 * owner remains. Requests
 * that ask the identity provider first are held there until both have arrived, so both are past
 * the early check and only the database's guard (migration 0044) can stop the second.
 */

const ROUNDS = RELIABILITY_FULL ? 20 : 4;

/**
 * The local provider's answers, except that while `meeting` is on a ban waits for the other
 * request's ban (at most 10 s), so both requests are past the early check before either writes.
 */
class MeetingIdentity implements IdentityProvider {
  readonly kind = 'local' as const;
  readonly calls: string[] = [];
  meeting = false;
  #waiting: Array<() => void> = [];

  async fetchUser(): Promise<IdentityAccount | null> {
    return null;
  }

  async banUser(userId: string): Promise<void> {
    this.calls.push(`ban ${userId}`);
    if (!this.meeting) return;
    await new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (this.#waiting.length >= 2) {
        for (const release of this.#waiting.splice(0)) release();
      } else {
        // A bound, not a wait: a request whose partner never comes goes on instead of hanging the test.
        setTimeout(resolve, 10_000).unref();
      }
    });
  }

  async unbanUser(userId: string): Promise<void> {
    this.calls.push(`unban ${userId}`);
  }

  async signOut(): Promise<void> {}

  async deleteUser(): Promise<void> {}
}

const identity = new MeetingIdentity();
const apps: TestApp[] = [];
let superuser: TestUser;

beforeAll(async () => {
  const first = await startTestApp({ identity });
  apps.push(first, await startTestApp({ identity, database: await first.testDatabase!.openAnother({ pooled: true }) }));
  superuser = await createUser(first.db, ['*']);
}, 60_000);
afterAll(async () => {
  for (const instance of [...apps].reverse()) await instance.close();
});

const db = () => apps[0]!.db;

type Removal = (app: TestApp, owner: TestUser) => Promise<LightMyRequestResponse>;

const asSuperuser = (app: TestApp, method: 'POST' | 'DELETE', url: string, payload: object) =>
  app.request({ method, url, token: superuser.token, payload });
const revoke: Removal = (app, owner) =>
  asSuperuser(app, 'POST', '/v1/admin/users/bulk/roles', { user_ids: [owner.id], role_key: 'owner', action: 'revoke' });
const expire: Removal = (app, owner) =>
  asSuperuser(app, 'POST', '/v1/admin/users/bulk/roles', {
    user_ids: [owner.id],
    role_key: 'owner',
    action: 'grant',
    expires_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
const ban: Removal = (app, owner) => asSuperuser(app, 'POST', `/v1/admin/users/${owner.id}/ban`, { reason: 'race' });
const softDelete: Removal = (app, owner) =>
  asSuperuser(app, 'DELETE', `/v1/admin/users/${owner.id}`, { reason: 'race' });

/** A removal went through: 204, 200 with `ok` (bulk), or 200 with `deleted_at` (the player's own deletion). */
function succeeded(response: LightMyRequestResponse): boolean {
  if (response.statusCode === 204) return true;
  if (response.statusCode !== 200) return false;
  const body = response.json();
  return body.results?.[0]?.ok === true || 'deleted_at' in body;
}

/**
 * How a removal was refused, if it was: the documented 422, or (bulk, answered per user as the spec
 * has it) 200 with the owner's own result failing with SQLSTATE 23514.
 */
function refused(response: LightMyRequestResponse): boolean {
  if (response.statusCode === 422) return JSON.stringify(response.json()) === JSON.stringify(LAST_OWNER);
  if (response.statusCode !== 200) return false;
  const [result] = (response.json() as { results?: Array<{ ok: boolean; error?: string }> }).results ?? [];
  return result?.ok === false && result.error === '23514';
}

async function race(first: Removal, second: Removal, prepare?: (owners: TestUser[]) => Promise<Removal | undefined>) {
  for (let round = 0; round < ROUNDS; round++) {
    const owners = await ownersExactly(db(), 2);
    const replacement = await prepare?.(owners);
    const responses = await Promise.all([(replacement ?? first)(apps[0]!, owners[0]!), second(apps[1]!, owners[1]!)]);
    const outcomes = responses.map((r) =>
      succeeded(r) ? 'done' : refused(r) ? 'refused' : `${r.statusCode} ${r.body}`,
    );
    expect(outcomes.sort(), `round ${round}`).toEqual(['done', 'refused']);
    const remaining = await activeOwners(db());
    expect(remaining, `round ${round}`).toHaveLength(1);
    // The refused request wrote nothing; the survivor is the owner it named.
    const kept = responses.findIndex((response) => !succeeded(response));
    expect(await auditOf(db(), requestIdOf(responses[kept]!))).toEqual([]);
    expect(remaining).toEqual([owners[kept]!.id]);
  }
}

describe('the last two owners, each losing owner rights in another request at once: one remains', () => {
  it(`two revokes (${ROUNDS} rounds)`, async () => {
    await race(revoke, revoke);
  });

  it(`two bans, both past the early check (${ROUNDS} rounds); the refused one's sign-in comes back`, async () => {
    identity.calls.length = 0;
    identity.meeting = true;
    try {
      await race(ban, ban);
    } finally {
      identity.meeting = false;
    }
    const bans = identity.calls.filter((call) => call.startsWith('ban ')).length;
    const unbans = identity.calls.filter((call) => call.startsWith('unban ')).length;
    expect({ bans, unbans }).toEqual({ bans: 2 * ROUNDS, unbans: ROUNDS });
  }, 60_000);

  it(`a ban and an expiry put on the other's grant (${ROUNDS} rounds)`, async () => {
    await race(ban, expire);
  });

  it(`a soft delete and a revoke (${ROUNDS} rounds)`, async () => {
    await race(softDelete, revoke);
  });

  it(`an owner confirming their own deletion while the other is banned, both past the early check (${ROUNDS} rounds)`, async () => {
    identity.meeting = true;
    try {
      await race(ban, ban, async ([leaving]) => {
        expect((await start(apps[0]!, leaving!)).statusCode).toBe(202);
        const code = await mailedCode(apps[0]!, leaving!.id);
        return (app, owner) => confirm(app, owner, code);
      });
    } finally {
      identity.meeting = false;
    }
  }, 60_000);
});
