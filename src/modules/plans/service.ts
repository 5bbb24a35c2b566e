import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import type { AuditPicture } from '../../kernel/audit.js';
import { invalidRequest } from '../../kernel/errors.js';
import { rulesetPicture, tierPicture } from './audit-picture.js';
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
import type { Writes } from '../../kernel/write.js';

/**
 * The audit pictures of an upsert (`before` null: it created the record, pictured whole). One that
 * changes nothing stores and audits nothing: config-as-code tools may re-apply the same
 * definitions as often as they like.
 */
function upsertChanges(picture: AuditPicture, current: object | undefined, wanted: object) {
  if (current === undefined) return { before: null, after: picture.of(wanted), changed: true };
  const { before, after, changed } = picture.changes(current, wanted);
  return { before, after, changed: changed.length > 0 };
}

export class PlansService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async listRulesets(query: ListRulesetsQuery) {
    return { data: await listRulesets(this.db, query) };
  }

  async listTiers(query: ListTiersQuery) {
    return { data: await listTiers(this.db, query) };
  }

  /** Operation 8: create or replace the ruleset named by `key`; its id never changes. */
  async upsertRuleset(actor: Actor, input: UpsertRulesetInput): Promise<{ id: string }> {
    return this.write(actor, async (w) => {
      const existing = await lockRulesetByKey(w.trx, input.key);
      const wanted = {
        name: input.name,
        description: input.description ?? null,
        limits: input.limits,
        is_active: input.isActive,
      };
      const { before, after, changed } = upsertChanges(rulesetPicture, existing, wanted);
      if (existing !== undefined && !changed) return { id: existing.id };
      const id = await upsertRuleset(w.trx, input, actor.userId);
      await w.audit({
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
    await this.write(actor, async (w) => {
      const ruleset = await shareLockRulesetByKey(w.trx, input.rulesetKey);
      if (ruleset === undefined) throw invalidRequest({ reason: 'unknown ruleset', rulesetKey: input.rulesetKey });
      const existing = await lockTierByKey(w.trx, input.key);
      const wanted = {
        name: input.name,
        rank: input.rank,
        rulesetKey: ruleset.key,
        description: input.description ?? null,
      };
      const { before, after, changed } = upsertChanges(tierPicture, existing, wanted);
      if (existing !== undefined && !changed) return;
      const id = await upsertTier(w.trx, input, ruleset.id, actor.userId);
      await w.audit({
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
