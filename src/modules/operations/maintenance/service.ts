import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { readPanicState, type PanicMonitor, type PanicState } from '../../../kernel/maintenance.js';
import type { Writes } from '../../../kernel/write.js';
import { changePanicLevel } from './panic-change.js';
import { staffNameOf } from './queries.js';
import type { MaintenanceNotice, SetPanicInput } from './schemas.js';

export class OpsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly panic: PanicMonitor,
  ) {}

  current(): Promise<PanicState> {
    return readPanicState(this.db);
  }

  /** The level with the name of whoever set it: what every staff member is shown, whatever their role. */
  async notice(): Promise<MaintenanceNotice> {
    const state = await readPanicState(this.db);
    return { ...state, set_by_name: await staffNameOf(this.db, state.set_by) };
  }

  /**
   * Operation 12. The change, its audit row, the alert, the dashboard event and the cache
   * invalidation for every instance commit together; this instance applies it at once.
   * A level a person sets is never overridden by the incident monitor.
   */
  async setPanicMode(actor: Actor, input: SetPanicInput): Promise<{ panic: PanicState }> {
    const panic = await this.write(actor, (w) =>
      changePanicLevel(w, {
        level: input.level,
        reason: input.reason,
        setBy: actor.userId,
        at: new Date(),
      }),
    );
    await this.panic.refresh();
    return { panic };
  }
}
