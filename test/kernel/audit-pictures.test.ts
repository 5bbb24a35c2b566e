import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  auditPicturesFixture,
  auditShape,
  runIndependent,
  testAuditAction,
  unknownAuditPictures,
} from '../helpers/audit-pictures.js';
import { asInstant, asLength, auditPicture } from '../../src/kernel/audit.js';

/**
 * The audit pictures are derived from per-table declarations (decision 0100). Every test app
 * checks its audit rows against the pictures the hand-written code produced before
 * (test/fixtures/audit-pictures.json, test/helpers/audit-pictures.ts); this file checks that the
 * fixture covers every audit action in src/, so a new action fails until its pictures are recorded.
 */

const MODULES = fileURLToPath(new URL('../../src/modules/', import.meta.url));
// Files that hold no audit writes: SQL (whose `'table.column'` refs look like actions), schemas,
// module declarations (event names, permission keys) and route tables.
const NO_AUDIT_WRITES = /(queries|schemas|module|routes)\.ts$/;

/** Actions built from a template literal, with every value the template takes. */
const TEMPLATE_ACTIONS: Record<string, string[]> = {
  'device_authorization.${input.action}': ['device_authorization.approve', 'device_authorization.deny'],
  'store.${term.noun}.create': ['store.genre.create', 'store.developer.create', 'store.publisher.create'],
  'store.${term.noun}.update': ['store.genre.update', 'store.developer.update', 'store.publisher.update'],
  'store.${term.noun}.delete': ['store.genre.delete', 'store.developer.delete', 'store.publisher.delete'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const DOTTED = /'([a-z_]+(?:\.[a-z_]+)+)'/g;
// An event's name beside an action (`{ action: 'users.ban', event: 'users.banned' }`) is no action.
const NOT_AN_ACTION = /(?:name|event|kind|topic|perms):[^,\n]*/g;

/**
 * Every audit action src/modules names: dotted strings in a statement that speaks of an `action` (an
 * entry's `action:`, a `const action =`, a status change handed its action), and the template
 * actions above. A template action missing from TEMPLATE_ACTIONS fails the test.
 */
function actionsInSource(): { actions: Set<string>; unknownTemplates: string[] } {
  const actions = new Set<string>();
  const unknownTemplates: string[] = [];
  for (const file of sourceFiles(MODULES).filter((path) => !NO_AUDIT_WRITES.test(path))) {
    const text = readFileSync(file, 'utf8');
    for (const statement of text.split(/;\s*\n/)) {
      if (!/\baction\b|#setStatus\(/.test(statement)) continue;
      for (const match of statement.replace(NOT_AN_ACTION, '').matchAll(DOTTED)) actions.add(match[1]!);
    }
    for (const match of text.matchAll(/action: `([^`]+)`/g)) {
      const expansions = TEMPLATE_ACTIONS[match[1]!];
      if (expansions === undefined) unknownTemplates.push(`${file}: ${match[1]}`);
      else for (const action of expansions) actions.add(action);
    }
  }
  return { actions, unknownTemplates };
}

/** The summary of the first recorded picture of an action. */
function recordedSummary(action: string): Record<string, unknown> {
  return (JSON.parse(auditPicturesFixture()[action]![0]!) as { summary: Record<string, unknown> }).summary;
}

describe('audit pictures', () => {
  const fixture = auditPicturesFixture();
  const { actions, unknownTemplates } = actionsInSource();

  it('finds the audit actions of src/ (the scan is not blind)', () => {
    expect(unknownTemplates).toEqual([]);
    for (const action of ['site.announcement.create', 'users.ban', 'email.campaign.cancel', 'site.settings.rollback'])
      expect(actions).toContain(action);
    expect(actions).not.toContain('users.banned');
  });

  it('holds recorded pictures of every audit action in src/', () => {
    const uncovered = [...actions].filter((action) => fixture[action] === undefined);
    expect(uncovered.sort()).toEqual([]);
  });

  it('holds pictures only of actions src/ still writes', () => {
    expect(Object.keys(fixture).filter((action) => !actions.has(action))).toEqual([]);
  });

  it('refuses a picture with a key no recorded one had, or a key holding another kind of value', () => {
    const shape = JSON.parse(fixture['site.announcement.create']![0]!) as {
      target_type: string;
      summary: { after: Record<string, unknown> };
    };
    const row = { action: 'site.announcement.create', target_type: shape.target_type, summary: shape.summary };
    expect(unknownAuditPictures([row])).toEqual([]);
    const moreKeys = { ...row, summary: { after: { ...shape.summary.after, body: 'the whole text' } } };
    const otherKind = { ...row, summary: { after: { ...shape.summary.after, body_length: 'the whole text' } } };
    expect(unknownAuditPictures([moreKeys, otherKind])).toHaveLength(2);
    // Another test file writes other lengths and words than the recorded ones: the same picture.
    const otherValues = { ...row, summary: { after: { ...shape.summary.after, body_length: 7, severity: 'info' } } };
    expect(unknownAuditPictures([otherValues])).toEqual([]);
  });

  it('refuses a picture that lost a key of the summary every recorded one had, or names another target type', () => {
    const summary = recordedSummary('system.cron.disable');
    const row = { action: 'system.cron.disable', target_type: 'scheduled_job', summary };
    expect(unknownAuditPictures([row])).toEqual([]);
    const { key: _key, ...withoutKey } = summary;
    expect(unknownAuditPictures([{ ...row, summary: withoutKey }])).toEqual([
      expect.stringContaining('.summary.key missing'),
    ]);
    expect(unknownAuditPictures([{ ...row, target_type: 'cron_job' }])).toEqual([
      expect.stringContaining('.target_type: "cron_job"'),
    ]);
    const activeAsText = { ...summary, after: { ...(summary.after as object), active: 'no' } };
    expect(unknownAuditPictures([{ ...row, summary: activeAsText }])).toEqual([
      expect.stringContaining('.summary.after.active: text'),
    ]);
  });

  it("passes a row a user's hard delete redacted, whatever its action, and only in the recorded redaction picture", () => {
    const redacted = { action: 'billing.credits.grant', target_type: 'user', summary: { redacted: true } };
    expect(unknownAuditPictures([redacted, { ...redacted, action: 'users.sign_out' }])).toEqual([]);
    expect(unknownAuditPictures([{ ...redacted, summary: { redacted: 'yes' } }])).toHaveLength(1);
  });

  it('passes the pictures of parallel grants landing in another order: other ids and balances', () => {
    const summary = recordedSummary('billing.credits.grant') as { after: Record<string, unknown> };
    const reordered = { ...summary, after: { ...summary.after, balance: 987_654, entry_id: 4_321, lot_id: 1_234 } };
    expect(
      unknownAuditPictures([{ action: 'billing.credits.grant', target_type: 'user', summary: reordered }]),
    ).toEqual([]);
    const asText = { ...summary, after: { ...summary.after, balance: 'a lot' } };
    expect(
      unknownAuditPictures([{ action: 'billing.credits.grant', target_type: 'user', summary: asText }]),
    ).toHaveLength(1);
  });

  it("passes the rows of a test's own actions, and refuses to take the service's actions out of the check", () => {
    const row = { action: 'probe.picture_check', target_type: 'thing', summary: { anything: 1 } };
    expect(unknownAuditPictures([row])).toEqual([expect.stringContaining('an action never recorded')]);
    testAuditAction('probe.picture_check');
    expect(unknownAuditPictures([row])).toEqual([]);
    expect(() => testAuditAction('users.ban')).toThrow(/an action the service writes/);
  });

  it('keeps ids, instants and free text as their kind, and the service words as they are', () => {
    expect(
      runIndependent({
        id: '0b6a4c55-3f5e-4a1b-9a8e-6f0d2f1c9e11',
        at: '2026-11-29T14:00:00.000Z',
        key: 'ct-hwljkojs',
        status: 'answered',
        count: 3,
      }),
    ).toEqual({ id: '<uuid>', at: '<instant>', key: '<text>', status: 'answered', count: 3 });
    expect(auditShape({ action: 'a.b', target_type: 't', summary: '{"after":{"n":1}}' })).toBe(
      '{"summary":{"after":{"n":1}},"target_type":"t"}',
    );
  });

  it('records only the declared columns of a row, shown as declared', () => {
    const picture = auditPicture<{ title: string; body: string; at: Date | null; token_hash: string }>({
      title: true,
      body: asLength('body_length'),
      at: asInstant,
      token_hash: false,
    });
    const row = { title: 'T', body: 'héllo', at: new Date('2026-01-02T03:04:05Z'), token_hash: 'secret' };
    expect(picture.of(row)).toEqual({ title: 'T', body_length: 5, at: '2026-01-02T03:04:05.000Z' });
    expect(picture.of(row, ['title'])).toEqual({ title: 'T' });
    expect(picture.changes(row, { title: 'T', body: 'hello', token_hash: 'other' })).toEqual({
      before: { body_length: 5 },
      after: { body_length: 5 },
      changed: ['body'],
    });
    // A column left out of a declaration is a type error: nobody forgets to decide on a secret.
    // @ts-expect-error token_hash is not declared
    auditPicture<{ title: string; token_hash: string }>({ title: true });
  });
});
