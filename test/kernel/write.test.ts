import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditChanges, auditPicture, pictureEntry, type AuditActor } from '../../src/kernel/audit.js';
import { AppError } from '../../src/kernel/errors.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { testAuditAction } from '../helpers/audit-pictures.js';

/** The kernel's one write path (src/kernel/write.ts): transaction, retry, audit, events, invalidations. */

let t: TestApp;
let staff: TestUser;
let actor: AuditActor;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db);
  actor = { userId: staff.id, requestId: 'req-write-test', ip: '203.0.113.9', userAgent: 'write-test' };
});
afterAll(async () => {
  await t?.close();
});

const conflict = (code: string) => Object.assign(new Error(`conflict ${code}`), { code });

const auditRowsOf = (action: string) =>
  t.db
    .selectFrom('audit_log')
    .select(['actor_id', 'action', 'target_id', 'request_id', 'ip', 'user_agent', 'reason', 'summary'])
    .where('action', '=', action)
    .execute();

const displayNameOf = async (id: string) =>
  (await t.db.selectFrom('users').select('display_name').where('id', '=', id).executeTakeFirstOrThrow()).display_name;

/**
 * Everything heard on `topic` by this instance, once every notice committed so far has come back
 * by NOTIFY (a marker topic, notified last, has been heard).
 */
async function heardOn(topic: string, run: () => Promise<unknown>): Promise<number> {
  let heard = 0;
  const marker = `write-test-marker-${randomUUID()}`;
  let markerHeard = false;
  const stops = [t.kernel.bus.on(topic, () => heard++), t.kernel.bus.on(marker, () => (markerHeard = true))];
  try {
    await run().catch(() => undefined);
    await t.kernel.bus.notify(t.db, marker);
    await eventually(() => expect(markerHeard).toBe(true));
    return heard;
  } finally {
    for (const stop of stops) stop();
  }
}

describe('write: the transaction and its retry', () => {
  it('runs the work again after a deadlock (40P01) or serialization failure (40001): last attempt stands', async () => {
    for (const code of ['40P01', '40001']) {
      const player = await createUser(t.db);
      let attempts = 0;
      const answer = await t.kernel.write(async (w) => {
        attempts += 1;
        await w.trx
          .updateTable('users')
          .set({ display_name: `attempt ${attempts}` })
          .where('id', '=', player.id)
          .execute();
        if (attempts < 3) throw conflict(code);
        return 'done';
      });
      expect({ code, answer, attempts, name: await displayNameOf(player.id) }).toEqual({
        code,
        answer: 'done',
        attempts: 3,
        name: 'attempt 3',
      });
    }
  });

  it('is bounded: three conflicts in a row are 503 unavailable (database_contention, retry after 1 s)', async () => {
    let attempts = 0;
    const failure = await t.kernel
      .write(actor, async () => {
        attempts += 1;
        throw conflict('40001');
      })
      .catch((error: unknown) => error);
    expect(attempts).toBe(3);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      status: 503,
      code: 'unavailable',
      details: { reason: 'database_contention' },
      headers: { 'retry-after': '1' },
    });
  });

  it('does not run again after any other error, and rolls the whole attempt back', async () => {
    const player = await createUser(t.db);
    let attempts = 0;
    const failure = await t.kernel
      .write(async (w) => {
        attempts += 1;
        await w.trx.updateTable('users').set({ display_name: 'changed' }).where('id', '=', player.id).execute();
        throw conflict('23505');
      })
      .catch((error: unknown) => error);
    expect(attempts).toBe(1);
    expect(failure).toMatchObject({ code: '23505' });
    expect(await displayNameOf(player.id)).toBeNull();
  });
});

describe('write: invalidations', () => {
  it('reach this instance once, right after commit, and not while the work runs', async () => {
    const topic = `write-test-${randomUUID()}`;
    let heardDuringWork = -1;
    let heardAtReturn = -1;
    let heard = 0;
    const stop = t.kernel.bus.on(topic, () => heard++);
    const total = await heardOn(topic, async () => {
      await t.kernel.write(async (w) => {
        w.invalidate(topic);
        // A NOTIFY queued in the transaction is not delivered before its commit.
        await w.trx.selectFrom('users').select('id').limit(1).execute();
        heardDuringWork = heard;
      });
      heardAtReturn = heard;
    });
    stop();
    // Heard at commit, before the writer's next line; its NOTIFY echo is not heard again.
    expect({ heardDuringWork, heardAtReturn, total }).toEqual({ heardDuringWork: 0, heardAtReturn: 1, total: 1 });
  });

  it('are never heard when the write rolls back, nor those of an attempt that conflicted', async () => {
    const rolledBack = `write-test-${randomUUID()}`;
    expect(
      await heardOn(rolledBack, () =>
        t.kernel.write(async (w) => {
          w.invalidate(rolledBack);
          throw new Error('refused');
        }),
      ),
    ).toBe(0);

    const retried = `write-test-${randomUUID()}`;
    const firstAttemptOnly = `write-test-${randomUUID()}`;
    let attempts = 0;
    let heardFirstOnly = 0;
    const stop = t.kernel.bus.on(firstAttemptOnly, () => heardFirstOnly++);
    const heardRetried = await heardOn(retried, () =>
      t.kernel.write(async (w) => {
        attempts += 1;
        w.invalidate(retried);
        if (attempts === 1) {
          w.invalidate(firstAttemptOnly);
          throw conflict('40P01');
        }
      }),
    );
    stop();
    expect({ attempts, heardRetried, heardFirstOnly }).toEqual({ attempts: 2, heardRetried: 1, heardFirstOnly: 0 });
  });
});

describe('write: audit rows and events', () => {
  it('writes the audit row in the same transaction as the change: both or neither', async () => {
    const player = await createUser(t.db);
    const action = testAuditAction(`test.write.${randomUUID().slice(0, 8)}`);
    const failure = await t.kernel
      .write(actor, async (w) => {
        await w.trx.updateTable('users').set({ display_name: 'refused' }).where('id', '=', player.id).execute();
        await w.audit({ action, targetType: 'user', targetId: player.id, after: { display_name: 'refused' } });
        throw new Error('refused after the audit row');
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: 'refused after the audit row' });
    expect({ rows: await auditRowsOf(action), name: await displayNameOf(player.id) }).toEqual({ rows: [], name: null });

    let attempts = 0;
    await t.kernel.write(actor, async (w) => {
      attempts += 1;
      await w.trx.updateTable('users').set({ display_name: 'kept' }).where('id', '=', player.id).execute();
      await w.audit({
        action,
        targetType: 'user',
        targetId: player.id,
        reason: 'testing',
        before: { display_name: null },
        after: { display_name: 'kept' },
        extra: { attempt: attempts },
      });
      if (attempts === 1) throw conflict('40001');
    });
    expect(await displayNameOf(player.id)).toBe('kept');
    // The first attempt's audit row rolled back with it.
    expect(await auditRowsOf(action)).toEqual([
      {
        actor_id: staff.id,
        action,
        target_id: player.id,
        request_id: 'req-write-test',
        ip: '203.0.113.9',
        user_agent: 'write-test',
        reason: 'testing',
        summary: { attempt: 2, before: { display_name: null }, after: { display_name: 'kept' } },
      },
    ]);
  });

  it('publishes events by the actor and their request unless the event names others, heard after commit', async () => {
    const name = `test.write_${randomUUID().slice(0, 8)}`;
    await t.kernel.write(actor, async (w) => {
      await w.publish({ kind: 'dashboard', name, payload: { n: 1 } });
      await w.publish({ kind: 'dashboard', name, payload: { n: 2 }, actorId: null });
    });
    const heard = await eventually(() => {
      const events = t.events.filter((event) => event.name === name);
      expect(events).toHaveLength(2);
      return events;
    });
    expect(heard.map(({ payload, actorId, requestId }) => ({ payload, actorId, requestId }))).toEqual([
      { payload: { n: 1 }, actorId: staff.id, requestId: 'req-write-test' },
      { payload: { n: 2 }, actorId: null, requestId: 'req-write-test' },
    ]);
  });
});

describe('auditChanges: the before and after an audit row keeps', () => {
  const stored = { name: 'Old', rank: 1, note: null as string | null, limits: { a: 1, b: 2 }, tags: ['x'] };

  it('keeps the fields sent whose value differs; undefined is not sent, null is a value', () => {
    expect(auditChanges(stored, { name: 'Old', rank: 2, note: undefined, tags: ['x', 'y'] })).toEqual({
      before: { rank: 1, tags: ['x'] },
      after: { rank: 2, tags: ['x', 'y'] },
      changed: ['rank', 'tags'],
    });
    expect(auditChanges(stored, { note: 'new' }).changed).toEqual(['note']);
    expect(auditChanges({ ...stored, note: 'old' }, { note: null })).toMatchObject({ after: { note: null } });
  });

  it('compares documents as canonical JSON (jsonb reorders keys), and changes nothing when nothing differs', () => {
    expect(auditChanges(stored, { limits: { b: 2, a: 1 }, rank: 1 })).toEqual({ before: {}, after: {}, changed: [] });
  });

  it('compares only the listed fields, in their order', () => {
    const wanted = { rank: 5, name: 'New' };
    expect(auditChanges(stored, wanted, { fields: ['name', 'note'] })).toEqual({
      before: { name: 'Old' },
      after: { name: 'New' },
      changed: ['name'],
    });
  });

  it('compares values as stored and shows them through `show`: a change past the cut still counts', () => {
    const cut = (_field: string, value: unknown) => (typeof value === 'string' ? value.slice(0, 3) : value);
    expect(auditChanges({ name: 'Same start 1' }, { name: 'Same start 2' }, { show: cut })).toEqual({
      before: { name: 'Sam' },
      after: { name: 'Sam' },
      changed: ['name'],
    });
  });

  it('gives both pictures whole on demand, still naming only what changed', () => {
    expect(auditChanges(stored, { name: 'Old', rank: 3 }, { whole: true })).toEqual({
      before: { name: 'Old', rank: 1 },
      after: { name: 'Old', rank: 3 },
      changed: ['rank'],
    });
  });

  it('counts the fields it is told to as changed whenever sent, equal or not', () => {
    expect(auditChanges(stored, { limits: { a: 1, b: 2 }, rank: 1 }, { alwaysChanged: ['limits'] })).toEqual({
      before: { limits: { a: 1, b: 2 } },
      after: { limits: { a: 1, b: 2 } },
      changed: ['limits'],
    });
    expect(auditChanges(stored, { rank: 1 }, { alwaysChanged: ['limits'] }).changed).toEqual([]);
  });
});

describe('pictureEntry: an audit entry of rows seen through their table picture', () => {
  const picture = auditPicture<{ id: string; name: string; secret: string; is_active: boolean }>({
    id: false,
    name: true,
    secret: false,
    is_active: { key: 'isActive' },
  });
  const row = { id: 'r1', name: 'Rule', secret: 's3cret', is_active: true };

  it('pictures a row, a list of rows (a list replaced whole) or no row (null), never an undeclared column', () => {
    expect(pictureEntry(picture, { action: 'a', before: null, after: row })).toEqual({
      action: 'a',
      before: null,
      after: { name: 'Rule', isActive: true },
    });
    expect(pictureEntry(picture, { action: 'a', before: [row, { ...row, name: 'Other' }], after: [] })).toEqual({
      action: 'a',
      before: [
        { name: 'Rule', isActive: true },
        { name: 'Other', isActive: true },
      ],
      after: [],
    });
  });

  it('narrows a side to the columns the action keeps', () => {
    expect(
      pictureEntry(picture, { action: 'a', before: row, after: { is_active: false }, only: ['is_active'] }),
    ).toEqual({ action: 'a', before: { isActive: true }, after: { isActive: false } });
  });
});
