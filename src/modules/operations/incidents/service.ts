import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { incidentRulePicture } from './audit-picture.js';
import { deleteRulesOtherThan, listPanicChanges, listRules, lockRules, upsertRuleSettings } from './queries.js';
import type { ChangesQuery, ReplaceRulesInput, RuleView } from './schemas.js';
import type { IncidentRuleRow, PanicChangeRow } from './tables.js';

function ruleView(row: IncidentRuleRow): RuleView {
  return {
    key: row.key,
    signal: row.signal,
    threshold: row.threshold,
    window_seconds: row.window_seconds,
    min_requests: row.min_requests,
    level: row.level,
    auto_clear: row.auto_clear,
    hold_seconds: row.hold_seconds,
    cooldown_seconds: row.cooldown_seconds,
    enabled: row.enabled,
    updated_at: row.updated_at,
    updated_by: row.updated_by,
    state: {
      holding: row.holding,
      breached_since: row.breached_since,
      healthy_since: row.healthy_since,
      last_change_at: row.last_change_at,
      silenced_until: row.silenced_until,
      last_evaluated_at: row.last_evaluated_at,
      last_value: row.last_value,
      last_total: row.last_total,
    },
  };
}

function changeView(row: PanicChangeRow) {
  return {
    ...row,
    measurement: row.measurement as Record<string, unknown> | null,
    signals: row.signals as Record<string, unknown> | null,
  };
}

/** Incident rules (staff edit them as one list) and the history of level changes. */
export class IncidentsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async rules(): Promise<{ rules: RuleView[] }> {
    return { rules: (await listRules(this.db)).map(ruleView) };
  }

  /**
   * Replaces the list: rules left out go, the others are inserted or updated by key, keeping the
   * monitor's state (a rule holding the level keeps holding it). Audited with before and after.
   */
  async replaceRules(actor: Actor, input: ReplaceRulesInput): Promise<{ rules: RuleView[] }> {
    const rows = await this.write(actor, async (w) => {
      const { trx } = w;
      const before = await lockRules(trx);
      const keys = input.rules.map((rule) => rule.key);
      await deleteRulesOtherThan(trx, keys);
      if (input.rules.length > 0) {
        const now = new Date();
        // A rule of the body is its settings, nothing more (its schema is strict).
        await upsertRuleSettings(
          trx,
          input.rules.map((rule) => ({ ...rule, updated_at: now, updated_by: actor.userId })),
        );
      }
      const after = await listRules(trx);
      await w.auditRow(incidentRulePicture, {
        action: 'ops.incident_rules.update',
        targetType: 'incident_rules',
        targetId: 'global',
        before,
        after,
      });
      await w.publish({ kind: 'dashboard', name: 'ops.incident_rules_updated', payload: { keys } });
      return after;
    });
    return { rules: rows.map(ruleView) };
  }

  async changes(query: ChangesQuery) {
    const { rows, total } = await listPanicChanges(this.db, query);
    return paged(rows.map(changeView), query, total);
  }
}
