import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type {
  ListRulesetsQuery,
  ListTiersQuery,
  RulesetView,
  TierView,
  UpsertRulesetInput,
  UpsertTierInput,
} from './schemas.js';
import './tables.js';

function rulesetViews(db: Kysely<Tables>) {
  return db
    .selectFrom('plan_rulesets')
    .select((eb) => [
      'plan_rulesets.id',
      'plan_rulesets.key',
      'plan_rulesets.name',
      'plan_rulesets.description',
      'plan_rulesets.limits',
      'plan_rulesets.is_active as isActive',
      eb
        .selectFrom('plan_tiers')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('plan_tiers.ruleset_id', '=', 'plan_rulesets.id')
        .as('tierCount'),
      'plan_rulesets.updated_by as updatedBy',
      'plan_rulesets.created_at as createdAt',
      'plan_rulesets.updated_at as updatedAt',
    ]);
}

function asRulesetView(
  row: { limits: unknown; tierCount: number | null } & Omit<RulesetView, 'limits' | 'tierCount'>,
): RulesetView {
  return { ...row, limits: row.limits as Record<string, unknown>, tierCount: row.tierCount ?? 0 };
}

export async function listRulesets(db: Kysely<Tables>, query: ListRulesetsQuery): Promise<RulesetView[]> {
  let rows = rulesetViews(db);
  if (query.isActive !== undefined) rows = rows.where('plan_rulesets.is_active', '=', query.isActive);
  return (await rows.orderBy('plan_rulesets.key').execute()).map(asRulesetView);
}

export async function findRulesetByKey(db: Kysely<Tables>, key: string): Promise<RulesetView | undefined> {
  const row = await rulesetViews(db).where('plan_rulesets.key', '=', key).executeTakeFirst();
  return row === undefined ? undefined : asRulesetView(row);
}

/** The ruleset row locked for the rest of the transaction: concurrent upserts of one key queue up. */
export function lockRulesetByKey(trx: Kysely<Tables>, key: string) {
  return trx.selectFrom('plan_rulesets').selectAll().where('key', '=', key).forUpdate().executeTakeFirst();
}

/** Insert or replace by key; the id stays the one first given to the key. */
export async function upsertRuleset(trx: Kysely<Tables>, input: UpsertRulesetInput, actorId: string): Promise<string> {
  const values = {
    key: input.key,
    name: input.name,
    description: input.description ?? null,
    limits: JSON.stringify(input.limits),
    is_active: input.isActive,
    updated_by: actorId,
  };
  const row = await trx
    .insertInto('plan_rulesets')
    .values(values)
    .onConflict((oc) => oc.column('key').doUpdateSet({ ...values, updated_at: new Date() }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

function tierViews(db: Kysely<Tables>) {
  return db
    .selectFrom('plan_tiers')
    .innerJoin('plan_rulesets', 'plan_rulesets.id', 'plan_tiers.ruleset_id')
    .select([
      'plan_tiers.id',
      'plan_tiers.key',
      'plan_tiers.name',
      'plan_tiers.rank',
      'plan_rulesets.key as rulesetKey',
      'plan_tiers.description',
      'plan_tiers.updated_by as updatedBy',
      'plan_tiers.created_at as createdAt',
      'plan_tiers.updated_at as updatedAt',
    ]);
}

export function listTiers(db: Kysely<Tables>, query: ListTiersQuery): Promise<TierView[]> {
  let rows = tierViews(db);
  if (query.rulesetKey !== undefined) rows = rows.where('plan_rulesets.key', '=', query.rulesetKey);
  return rows.orderBy('plan_tiers.rank').orderBy('plan_tiers.key').execute();
}

/** The tier locked for the rest of the transaction, with its ruleset's key. */
export function lockTierByKey(trx: Kysely<Tables>, key: string): Promise<TierView | undefined> {
  return tierViews(trx).where('plan_tiers.key', '=', key).forUpdate('plan_tiers').executeTakeFirst();
}

/** A ruleset a tier is about to point at, share-locked so it cannot change key or vanish meanwhile. */
export function shareLockRulesetByKey(trx: Kysely<Tables>, key: string) {
  return trx.selectFrom('plan_rulesets').select(['id', 'key']).where('key', '=', key).forShare().executeTakeFirst();
}

export async function upsertTier(
  trx: Kysely<Tables>,
  input: UpsertTierInput,
  rulesetId: string,
  actorId: string,
): Promise<string> {
  const values = {
    key: input.key,
    name: input.name,
    rank: input.rank,
    ruleset_id: rulesetId,
    description: input.description ?? null,
    updated_by: actorId,
  };
  const row = await trx
    .insertInto('plan_tiers')
    .values(values)
    .onConflict((oc) => oc.column('key').doUpdateSet({ ...values, updated_at: new Date() }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// What other areas use of plans (index.ts).

/** A tier a plan product is about to point at, share-locked so it cannot change key or vanish meanwhile. */
export async function shareLockTier(trx: Kysely<Tables>, key: string): Promise<boolean> {
  const row = await trx.selectFrom('plan_tiers').select('key').where('key', '=', key).forShare().executeTakeFirst();
  return row !== undefined;
}

/**
 * The limits of the user's plan (a game session's start): their tier's ruleset, when they have a
 * tier and the ruleset is active. Undefined: no tier (the free experience).
 */
export async function planLimitsOf(db: Kysely<Tables>, userId: string): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .selectFrom('user_directory as users')
    .innerJoin('plan_tiers', 'plan_tiers.key', 'users.tier')
    .innerJoin('plan_rulesets', 'plan_rulesets.id', 'plan_tiers.ruleset_id')
    .select(['plan_rulesets.limits'])
    .where('users.id', '=', userId)
    .where('plan_rulesets.is_active', '=', true)
    .executeTakeFirst();
  return row?.limits as Record<string, unknown> | undefined;
}
