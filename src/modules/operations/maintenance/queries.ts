import type { Kysely } from 'kysely';
import type { PanicLevel, Tables } from '../../../db/tables.js';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How staff know the person who set the level: display name, else email; null for a name that is no user id. */
export async function staffNameOf(db: Db, setBy: string | null): Promise<string | null> {
  if (setBy === null || !UUID.test(setBy)) return null;
  const row = await db
    .selectFrom('user_directory')
    .select(['display_name', 'email'])
    .where('id', '=', setBy.toLowerCase())
    .executeTakeFirst();
  return row?.display_name ?? row?.email ?? null;
}

/** For the incident monitor: the level, locked for the evaluation; undefined while another instance evaluates (or the row is missing). */
export function lockPanicStateUnlessBusy(trx: Db) {
  return trx.selectFrom('ops_panic_state').select(['level', 'auto']).forUpdate().skipLocked().executeTakeFirst();
}
