import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import { invalidRequest } from '../../kernel/errors.js';
import {
  listRulesets,
  listTiers,
  lockRulesetByKey,
  lockTierByKey,
  shareLockRulesetByKey,
  upsertRuleset,
  upsertTier,
} from './queries.js';
import type { ListRulesetsQuery, ListTiersQuery, UpsertRulesetInput, UpsertTierInput } from './schemas.js';
import { canonicalJson } from '../../lib/canonical-json.js';

/**
 * Fields whose value differs, as audit before/after pictures (`before` null: the upsert created
 * the record). An upsert that changes nothing stores and audits nothing: config-as-code tools
 * may re-apply the same definitions as often as they like.
 */
function changes(current: Record<string, unknown> | undefined, wanted: Record<string, unknown>) {
  if (current === undefined) return { before: null, after: wanted, changed: true };
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(wanted)) {
    if (canonicalJson(value) === canonicalJson(current[field])) continue;
    before[field] = current[field];
    after[field] = value;
  }
  return { before, after, changed: Object.keys(after).length > 0 };
}

export class PlansService {
  constructor(private readonly db: Kysely<Tables>) {}

  async listRulesets(query: ListRulesetsQuery) {
    return { data: await listRulesets(this.db, query) };
  }

  async listTiers(query: ListTiersQuery) {
    return { data: await listTiers(this.db, query) };
  }

  /** Operation 8: create or replace the ruleset named by `key`; its id never changes. */
  async upsertRuleset(actor: Actor, input: UpsertRulesetInput): Promise<{ id: string }> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await lockRulesetByKey(trx, input.key);
      const wanted = {
        name: input.name,
        description: input.description ?? null,
        limits: input.limits,
        isActive: input.isActive,
      };
      const current = existing && {
        name: existing.name,
        description: existing.description,
        limits: existing.limits,
        isActive: existing.is_active,
      };
      const { before, after, changed } = changes(current, wanted);
      if (existing !== undefined && !changed) return { id: existing.id };
      const id = await upsertRuleset(trx, input, actor.userId);
      await recordAudit(trx, actor, {
        action: 'plans.ruleset.upsert',
        targetType: 'plan_ruleset',
        targetId: id,
        before,
        after,
        extra: { key: input.key, created: existing === undefined },
      });
      return { id };
    });
  }

  /** Operation 13: create or replace the tier named by `key`; `rulesetKey` must name a ruleset (422). */
  async upsertTier(actor: Actor, input: UpsertTierInput): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const ruleset = await shareLockRulesetByKey(trx, input.rulesetKey);
      if (ruleset === undefined) throw invalidRequest({ reason: 'unknown ruleset', rulesetKey: input.rulesetKey });
      const existing = await lockTierByKey(trx, input.key);
      const wanted = {
        name: input.name,
        rank: input.rank,
        rulesetKey: ruleset.key,
        description: input.description ?? null,
      };
      const current = existing && {
        name: existing.name,
        rank: existing.rank,
        rulesetKey: existing.rulesetKey,
        description: existing.description,
      };
      const { before, after, changed } = changes(current, wanted);
      if (existing !== undefined && !changed) return;
      const id = await upsertTier(trx, input, ruleset.id, actor.userId);
      await recordAudit(trx, actor, {
        action: 'plans.tier.upsert',
        targetType: 'plan_tier',
        targetId: id,
        before,
        after,
        extra: { key: input.key, created: existing === undefined },
      });
    });
  }
}
