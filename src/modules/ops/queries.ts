import type { Kysely } from 'kysely';
import type { PanicLevel, Tables } from '../../db/tables.js';

type Db = Kysely<Tables>;

/** The level as it is, locked until the change commits: changes of the level queue up. */
export function lockPanicLevel(trx: Db) {
  return trx.selectFrom('ops_panic_state').select(['level', 'reason']).forUpdate().executeTakeFirst();
}

export interface PanicLevelRow {
  level: PanicLevel;
  reason: string;
  setBy: string;
  at: Date;
  /** Set by the incident monitor rather than a person. */
  auto: boolean;
}

export async function setPanicLevel(trx: Db, panic: PanicLevelRow): Promise<void> {
  await trx
    .updateTable('ops_panic_state')
    .set({ level: panic.level, reason: panic.reason, set_by: panic.setBy, set_at: panic.at, auto: panic.auto })
    .execute();
}
