import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../helpers/app.js';

/** Helpers shared by the store test files: factories that go through the real API, and state snapshots. */

export type TermKind = 'genres' | 'developers' | 'publishers';

let counter = 0;
/** A slug no other test of the run uses. */
export function uniqueSlug(prefix = 'game'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export async function createTerm(
  t: TestApp,
  user: TestUser,
  kind: TermKind,
  name: string,
  slug?: string,
): Promise<{ id: number; name: string; slug: string }> {
  const res = await t.request({
    method: 'POST',
    url: `/v1/admin/store/${kind}`,
    token: user.token,
    payload: slug === undefined ? { name } : { name, slug },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function createGame(
  t: TestApp,
  user: TestUser,
  payload: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { id: number; slug: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/admin/store/games',
    token: user.token,
    payload: { slug: uniqueSlug(), title: 'A game', ...payload },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export function patchGame(t: TestApp, user: TestUser | null, id: number | string, payload: unknown) {
  return t.request({
    method: 'PATCH',
    url: `/v1/admin/store/games/${id}`,
    token: user?.token,
    payload: payload as object,
  });
}

/** Everything the store keeps plus the audit and event counts: a refusal must leave it all unchanged. One query. */
export async function storeState(t: TestApp) {
  const rows = (table: string, order: string) =>
    sql.raw(`(SELECT coalesce(json_agg(x ORDER BY ${order}), '[]') FROM ${table} x)`);
  const result = await sql<Record<string, unknown>>`SELECT
      ${rows('store_games', 'id')} AS games,
      ${rows('store_genres', 'id')} AS genres,
      ${rows('store_developers', 'id')} AS developers,
      ${rows('store_publishers', 'id')} AS publishers,
      ${rows('store_game_genres', 'game_id, genre_id')} AS game_genres,
      ${rows('store_game_developers', 'game_id, developer_id')} AS game_developers,
      ${rows('store_game_publishers', 'game_id, publisher_id')} AS game_publishers,
      (SELECT count(*)::int FROM audit_log) AS audit,
      (SELECT count(*)::int FROM event_outbox) AS events`.execute(t.db);
  return result.rows[0];
}

export function auditRows(t: TestApp, action: string, targetId?: string | number) {
  let query = t.db.selectFrom('audit_log').selectAll().where('action', '=', action);
  if (targetId !== undefined) query = query.where('target_id', '=', String(targetId));
  return query.orderBy('created_at').execute();
}

export function linkIds(t: TestApp, gameId: number) {
  return Promise.all([
    t.db.selectFrom('store_game_genres').select('genre_id').where('game_id', '=', gameId).orderBy('genre_id').execute(),
    t.db
      .selectFrom('store_game_developers')
      .select('developer_id')
      .where('game_id', '=', gameId)
      .orderBy('developer_id')
      .execute(),
    t.db
      .selectFrom('store_game_publishers')
      .select('publisher_id')
      .where('game_id', '=', gameId)
      .orderBy('publisher_id')
      .execute(),
  ]).then(([genres, developers, publishers]) => ({
    genre_ids: genres.map((row) => row.genre_id),
    developer_ids: developers.map((row) => row.developer_id),
    publisher_ids: publishers.map((row) => row.publisher_id),
  }));
}

const url = (length: number) => `https://example.test/${'p'.repeat(length - 'https://example.test/'.length)}`;

/**
 * The spec's StoreGame input bounds: each field at its limit (accepted, stored as sent) and
 * one past it (400 SchemaError on that field). Used for both create and update.
 */
export const GAME_FIELD_BOUNDS: Array<{ field: string; accepted: unknown[]; refused: unknown[] }> = [
  {
    field: 'slug',
    accepted: ['a', '0', `a${'b'.repeat(127)}`, 'a-b-9'],
    refused: ['', `a${'b'.repeat(128)}`, 'Upper', '-lead', 'a_b', 'a b', 'é'],
  },
  { field: 'title', accepted: ['x', 't'.repeat(200)], refused: ['', 't'.repeat(201), 5, null] },
  { field: 'summary', accepted: ['s'.repeat(2000), null], refused: ['s'.repeat(2001), 1] },
  { field: 'description', accepted: ['d'.repeat(20000), null], refused: ['d'.repeat(20001)] },
  { field: 'game_type', accepted: ['app', 'game', 'launcher'], refused: ['mod', '', null] },
  { field: 'status', accepted: ['draft', 'published', 'hidden'], refused: ['archived', null] },
  {
    field: 'release_date',
    accepted: ['2024-02-29', '1999-12-31', null],
    refused: ['2023-02-29', '2024-13-01', '2024-1-01', '0000-01-01', '2024-01-01T00:00:00Z', 20240101],
  },
  { field: 'controller_support', accepted: ['none', 'partial', 'full'], refused: ['some', null] },
  {
    field: 'website',
    accepted: [url(500), 'http://example.test', null],
    refused: [url(501), 'not a url', 'javascript:alert(1)', 'ftp://example.test/file'],
  },
  { field: 'required_age', accepted: [0, 21], refused: [-1, 22, 1.5, '18', null] },
  { field: 'legal_notice', accepted: ['l'.repeat(5000), null], refused: ['l'.repeat(5001)] },
  { field: 'license_required', accepted: [true, false], refused: ['yes', 1, null] },
  { field: 'content_description', accepted: ['c'.repeat(5000), null], refused: ['c'.repeat(5001)] },
  { field: 'metadata', accepted: [{}, { nested: { a: [1, 'two'] } }], refused: [[], 'x', null] },
  {
    field: 'genre_ids',
    accepted: [[]],
    refused: [new Array(51).fill(1), [0], [-1], [2_147_483_648], ['1'], [1.5], null],
  },
  { field: 'developer_ids', accepted: [[]], refused: [new Array(51).fill(1), [0]] },
  { field: 'publisher_ids', accepted: [[]], refused: [new Array(51).fill(1), [0]] },
];

/** Flattened for it.each: one row per value, named by field and a short picture of the value. */
export function boundCases(kind: 'accepted' | 'refused') {
  return GAME_FIELD_BOUNDS.flatMap(({ field, ...values }) =>
    values[kind].map((value) => ({ field, value, shown: describeValue(value) })),
  );
}

function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 24 ? `"${value.slice(0, 8)}…" (${value.length} chars)` : JSON.stringify(value);
  if (Array.isArray(value)) return value.length > 5 ? `array of ${value.length}` : JSON.stringify(value);
  return JSON.stringify(value);
}
