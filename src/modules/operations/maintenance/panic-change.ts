import type { PanicLevel } from '../../../db/tables.js';
import { PANIC_TOPIC, readPanicState, type PanicState } from '../../../kernel/maintenance.js';
import { insertPanicChange, setHoldingRule, silenceFailingRules } from '../incidents/index.js';
import type { AuditedWrite } from '../../../kernel/write.js';
import { panicPicture } from './audit-picture.js';
import { lockPanicLevel, setPanicLevel } from './queries.js';

/** What the incident monitor adds to an automatic change: the rule and what it measured. */
export interface AutomaticCause {
  rule: string;
  measurement: Record<string, unknown>;
  signals: Record<string, unknown>;
}

export interface PanicChange {
  level: PanicLevel;
  reason: string;
  /** A staff member's user id, or the monitor's name. */
  setBy: string;
  at: Date;
  /** Present for a change the incident monitor made; absent for a person's. */
  cause?: AutomaticCause;
}

/**
 * The one way the level changes, for a person (operation 12) and for the incident monitor alike:
 * the row, its history entry, the audit row, the alert `panic_mode_changed`, the dashboard event
 * and the cache invalidation for every instance, all in the caller's write.
 * A person's `off` also silences the rules that were failing, each for its cool-down.
 */
export async function changePanicLevel(w: AuditedWrite, change: PanicChange): Promise<PanicState> {
  const { trx } = w;
  const auto = change.cause !== undefined;
  const before = await lockPanicLevel(trx);
  await setPanicLevel(trx, { level: change.level, reason: change.reason, setBy: change.setBy, at: change.at, auto });
  const after = await readPanicState(trx);
  const previousLevel = before?.level ?? 'off';
  await setHoldingRule(trx, change.cause?.rule ?? null);
  const silenced = !auto && change.level === 'off' ? await silenceFailingRules(trx, change.at) : [];
  await insertPanicChange(trx, {
    at: change.at,
    level: after.level,
    previousLevel,
    auto,
    reason: after.reason,
    setBy: after.set_by,
    ruleKey: change.cause?.rule ?? null,
    measurement: change.cause?.measurement ?? null,
    signals: change.cause?.signals ?? null,
  });
  const cause = change.cause === undefined ? {} : { rule: change.cause.rule, measurement: change.cause.measurement };
  await w.auditRow(panicPicture, {
    action: 'ops.panic.set',
    targetType: 'panic',
    targetId: 'global',
    reason: change.reason,
    before: before ?? null,
    after,
    ...(auto
      ? { extra: { auto: true, ...cause } }
      : silenced.length > 0
        ? { extra: { silenced_rules: silenced } }
        : {}),
  });
  const payload = {
    level: after.level,
    previous_level: previousLevel,
    reason: after.reason,
    set_by: after.set_by,
    auto,
    ...cause,
  };
  await w.publish({ kind: 'alert', name: 'panic_mode_changed', payload });
  await w.publish({ kind: 'dashboard', name: 'ops.panic_changed', payload });
  w.invalidate(PANIC_TOPIC);
  return after;
}
