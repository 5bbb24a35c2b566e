import { hostname, userInfo } from 'node:os';
import type { Database } from '../db/database.js';
import type { AuditActor } from '../kernel/audit.js';
import { ChangeBus } from '../kernel/change-bus.js';
import { EventPublisher } from '../kernel/events.js';
import { createWrites, type Writes } from '../kernel/write.js';

/**
 * kernel.write for a command: the same transactions, audit rows, outbox events and change
 * notices as the service's, without the kernel's listeners, jobs and peers. Notices are sent
 * in the transaction, so running instances hear the change as they would from one of their own.
 */
export function commandWrites(database: Database): Writes {
  const bus = new ChangeBus(database);
  return createWrites(database.db, bus, new EventPublisher(database.db, bus));
}

/** The login running the command, or "unknown" where the system has no entry for it (a container's uid). */
function operatorLogin(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * Who an operator's change is audited as: the service itself (no user id, like BOOTSTRAP_OWNER's
 * grants), with the command and the login and host it ran on where a request's user agent goes.
 */
export function operatorActor(command: string): AuditActor {
  return {
    userId: null,
    requestId: null,
    ip: null,
    userAgent: `platform-api ${command} (${operatorLogin()}@${hostname()})`,
  };
}
