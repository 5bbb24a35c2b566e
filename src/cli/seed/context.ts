import type { Actor } from '../../kernel/actor.js';
import type { Platform } from '../../composition/platform.js';
import { PermissionSet } from '../../kernel/permissions.js';
import { DEMO_ROLES, DEMO_STAFF, type DemoPlayer } from './people.js';
import type { SeededRandom } from './random.js';

/** What every step of the seed works with. */
export interface SeedContext {
  platform: Platform;
  random: SeededRandom;
  now: Date;
  players: DemoPlayer[];
  /** Where a request's user agent goes in the audit rows: the seed command, and who ran it where. */
  userAgent: string;
  tally: Tally;
}

/** A demo staff member acting through a service: their id, their role's permissions, the seed's user agent. */
export function staffActor(context: SeedContext, email: string): Actor {
  const staff = DEMO_STAFF.find((member) => member.email === email);
  if (staff === undefined) throw new Error(`no demo staff member has the email ${email}`);
  const permissions =
    staff.role === 'owner' ? ['*'] : (DEMO_ROLES.find((role) => role.key === staff.role)?.permissions ?? []);
  return {
    userId: staff.id,
    permissions: new PermissionSet(permissions),
    requestId: null,
    ip: null,
    userAgent: context.userAgent,
  };
}

/** A demo player acting for themselves (opening a ticket, buying a plan). */
export function playerActor(context: SeedContext, player: DemoPlayer): Actor {
  return {
    userId: player.id,
    permissions: new PermissionSet([]),
    requestId: null,
    ip: null,
    userAgent: context.userAgent,
  };
}

/** What the seed made and what it found already there, by kind, in the order first met. */
export class Tally {
  readonly #counts = new Map<string, { created: number; existing: number; skipped?: string }>();

  #of(kind: string) {
    let counts = this.#counts.get(kind);
    if (counts === undefined) {
      counts = { created: 0, existing: 0 };
      this.#counts.set(kind, counts);
    }
    return counts;
  }

  created(kind: string, n = 1): void {
    this.#of(kind).created += n;
  }

  existing(kind: string, n = 1): void {
    this.#of(kind).existing += n;
  }

  /** Either made now or found: `made` says which. */
  count(kind: string, made: boolean): void {
    if (made) this.created(kind);
    else this.existing(kind);
  }

  /** A kind this run could not make, and why (a configuration without it). */
  skipped(kind: string, why: string): void {
    this.#of(kind).skipped = why;
  }

  get totalCreated(): number {
    return [...this.#counts.values()].reduce((sum, counts) => sum + counts.created, 0);
  }

  entries(): Array<{ kind: string; created: number; existing: number; skipped?: string }> {
    return [...this.#counts].map(([kind, counts]) => ({ kind, ...counts }));
  }
}
