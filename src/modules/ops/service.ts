import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import type { ChangeBus } from '../../kernel/change-bus.js';
import type { EventPublisher } from '../../kernel/events.js';
import { PANIC_TOPIC, readPanicState, type PanicMonitor, type PanicState } from '../../kernel/maintenance.js';
import type { SetPanicInput } from './schemas.js';

export class OpsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly bus: ChangeBus,
    private readonly events: EventPublisher,
    private readonly panic: PanicMonitor,
  ) {}

  current(): Promise<PanicState> {
    return readPanicState(this.db);
  }

  /**
   * Operation 12. The change, its audit row, the alert, the dashboard event and the cache
   * invalidation for every instance commit together; this instance applies it at once.
   */
  async setPanicMode(actor: Actor, input: SetPanicInput): Promise<{ panic: PanicState }> {
    const panic = await this.db.transaction().execute(async (trx) => {
      const before = await trx.selectFrom('ops_panic_state').select(['level', 'reason']).forUpdate().executeTakeFirst();
      await trx
        .updateTable('ops_panic_state')
        .set({ level: input.level, reason: input.reason, set_by: actor.userId, set_at: new Date(), auto: false })
        .execute();
      const after = await readPanicState(trx);
      await recordAudit(trx, actor, {
        action: 'ops.panic.set',
        targetType: 'panic',
        targetId: 'global',
        reason: input.reason,
        before: before ?? null,
        after: { level: after.level, reason: after.reason },
      });
      const payload = { level: after.level, previous_level: before?.level ?? 'off', reason: after.reason, set_by: after.set_by, auto: false };
      await this.events.publish(trx, { kind: 'alert', name: 'panic_mode_changed', payload, actorId: actor.userId, requestId: actor.requestId });
      await this.events.publish(trx, { kind: 'dashboard', name: 'ops.panic_changed', payload, actorId: actor.userId, requestId: actor.requestId });
      await this.bus.notify(trx, PANIC_TOPIC);
      return after;
    });
    await this.panic.refresh();
    return { panic };
  }
}
