import { sql } from 'kysely';
import type { Tables } from '../../src/db/tables.js';
import type { Kernel } from '../../src/kernel/kernel.js';

/**
 * What is stored, read so that two reads compare equal when nothing changed: the state a refused
 * request must leave as it was (see expectRefusedUnchanged in expectations.ts).
 */

type Db = Kernel['db'];
type TableName = keyof Tables & string;

/** How many rows `table` holds. */
export async function rowCount(db: Db, table: TableName): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * Every row of each table, ordered by the columns given for it, and the number of rows of each
 * table in `counted` (tables every other write also adds to, such as audit_log and event_outbox,
 * are compared by count).
 */
export async function storedState(
  db: Db,
  tables: Partial<Record<TableName, readonly string[]>>,
  counted: readonly TableName[] = ['audit_log'],
): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const [table, orderBy] of Object.entries(tables) as Array<[TableName, readonly string[]]>) {
    const order = sql.join(orderBy.map((column) => sql.ref(column)));
    state[table] = (await sql`select * from ${sql.table(table)} order by ${order}`.execute(db)).rows;
  }
  for (const table of counted) state[`${table} count`] = await rowCount(db, table);
  return state;
}

/**
 * Who holds which rights: users (last_seen_at aside, every signed-in request touches it), their
 * role grants, the roles and the roles' permissions.
 */
export async function accessState(db: Db): Promise<Record<string, unknown>> {
  const { users, ...rights } = await storedState(
    db,
    {
      users: ['id'],
      user_roles: ['user_id', 'role_id'],
      roles: ['id'],
      role_permissions: ['role_id', 'permission_key'],
    },
    [],
  );
  return {
    users: (users as Array<Record<string, unknown>>).map((row) => ({ ...row, last_seen_at: undefined })),
    ...rights,
  };
}
