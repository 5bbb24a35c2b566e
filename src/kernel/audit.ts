import type { Kysely } from 'kysely';
import type { NewAuditRow, Tables } from '../db/tables.js';
import type { RequestContext } from './actor.js';

/** Who wrote the change: a signed-in staff member, or the service itself (`userId` null). */
export interface AuditActor extends RequestContext {
  userId: string | null;
}

export interface AuditEntry {
  action: string;
  targetType?: string;
  targetId?: string;
  reason?: string | null;
  /** A small picture of the change; never secrets. */
  before?: unknown;
  after?: unknown;
  /** Anything else worth keeping (counts, ids of a bulk change). */
  extra?: Record<string, unknown>;
}

function auditRow(actor: AuditActor, entry: AuditEntry): NewAuditRow {
  const summary: Record<string, unknown> = { ...entry.extra };
  if (entry.before !== undefined) summary.before = entry.before;
  if (entry.after !== undefined) summary.after = entry.after;
  return {
    actor_id: actor.userId,
    action: entry.action,
    target_type: entry.targetType ?? null,
    target_id: entry.targetId ?? null,
    request_id: actor.requestId,
    ip: actor.ip,
    user_agent: actor.userAgent,
    reason: entry.reason ?? null,
    summary: JSON.stringify(summary),
  };
}

/** Writes the audit row inside the caller's transaction: the change and its record land together. */
export async function recordAudit(trx: Kysely<Tables>, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await trx.insertInto('audit_log').values(auditRow(actor, entry)).execute();
}

/** Many audit rows in one statement (bulk operations). */
export async function recordAuditMany(trx: Kysely<Tables>, actor: AuditActor, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await trx
    .insertInto('audit_log')
    .values(entries.map((entry) => auditRow(actor, entry)))
    .execute();
}
