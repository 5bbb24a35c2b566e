import { createHash } from 'node:crypto';
import type { SeedSizes } from '../options.js';

/**
 * Names and ids of the seeded data, shared by the seed SQL and the scenarios. Ids are derived
 * from a kind and a number (md5, shaped as a version 4 uuid) in both SQL and TypeScript, so the
 * runner knows user 4,711's id without asking the database.
 */
export function benchUuid(kind: string, n: number): string {
  const h = createHash('md5').update(`bench:${kind}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The same id as `benchUuid`, computed in SQL from an integer expression. */
export function benchUuidSql(kind: string, n: string): string {
  const h = `md5('bench:${kind}:' || (${n})::text)`;
  return (
    `(substr(${h}, 1, 8) || '-' || substr(${h}, 9, 4) || '-4' || substr(${h}, 14, 3) || '-8' || substr(${h}, 18, 3) ` +
    `|| '-' || substr(${h}, 21, 12))::uuid`
  );
}

export interface BenchUser {
  id: string;
  email: string;
}

export function benchUser(n: number): BenchUser {
  return { id: benchUuid('user', n), email: `player${n}@bench.example` };
}

/** User 1 holds the built-in owner role: the staff member of every admin scenario. */
export const ADMIN_USER = 1;
/** User 2 holds an on-call role with `ops.panic` only: the one who sets lockdown. */
export const OPS_USER = 2;
/** Users 3 … 2 + this share of the active users hold support, moderation and content roles. */
export const STAFF_SHARE = 0.01;

/** The role operation 14 grants (no permissions: a badge, so any staff with roles.assign may grant it). */
export const BULK_ROLE_KEY = 'beta-tester';
export const EMAIL_TEMPLATE_KEY = 'bench-news';
export const AUDIENCE_ID = benchUuid('audience', 1);

/** Operation 21 moves subscribers between these two plans (same tier, a new price), and back. */
export const PLAN_PRODUCTS = {
  current: { id: benchUuid('product', 1), priceId: 'local_price_bench_plus_2025', amount: 999 },
  next: { id: benchUuid('product', 2), priceId: 'local_price_bench_plus_2026', amount: 1099 },
} as const;

/** Subscribers are users 101 … 100 + sizes.localSubscriptions. */
export const FIRST_SUBSCRIBER = 101;

export function subscriberIds(n: number): { subscriptionId: string; customerId: string } {
  return { subscriptionId: `sub_local_bench_${n}`, customerId: `cus_local_bench_${n}` };
}

/** Players whose tokens the /v1/me scenarios rotate through: plain users from the middle of the set. */
export function playerRange(sizes: SeedSizes): { first: number; count: number } {
  return { first: Math.floor(sizes.activeUsers / 2) + 1, count: Math.min(1_000, Math.floor(sizes.activeUsers / 4)) };
}

/** The users the n-th bulk grant (0-based) names: none of them holds the role yet. */
export function bulkGrantRange(sizes: SeedSizes, repetition: number): number[] {
  const first = Math.floor(sizes.activeUsers / 5) + repetition * sizes.bulkGrantUsers + 1;
  return Array.from({ length: sizes.bulkGrantUsers }, (_, i) => first + i);
}

/** Users who already hold the bulk role (seeded), far from the ones the bulk grants name. */
export function existingBulkRoleHolders(sizes: SeedSizes): { first: number; last: number } {
  const last = sizes.activeUsers;
  return { first: last - Math.floor(sizes.activeUsers / 20) + 1, last };
}
