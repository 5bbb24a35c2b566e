import type { Platform } from '../../composition/platform.js';
import { seedBilling } from './billing-step.js';
import { Tally, type SeedContext } from './context.js';
import { deliverQueuedMail, seedEmail } from './email-step.js';
import { banTroublemakers, seedPeople } from './people-step.js';
import { demoPlayers } from './people.js';
import { SeededRandom } from './random.js';
import { seedSessions } from './sessions-step.js';
import { seedSite } from './site-step.js';
import { seedStore } from './store-step.js';
import { seedSupport } from './support-step.js';

export const DEMO_PLAYER_COUNT = 50;
const SEED = 32;

/** In order: each step reads what the ones before it made (grants need users, checkouts need products). */
const STEPS: Array<[name: string, run: (context: SeedContext) => Promise<void>]> = [
  ['people and roles', seedPeople],
  ['store', seedStore],
  ['site', seedSite],
  ['plans, billing and credits', seedBilling],
  ['email', seedEmail],
  ['support', seedSupport],
  ['runtime and sessions', seedSessions],
  ['bans', banTroublemakers],
  ['mail delivery', deliverQueuedMail],
];

export const DEMO_SEED_STEPS = STEPS.length;

export interface DemoSeedOptions {
  /** The audit rows' user agent: the command, and who ran it where. */
  userAgent: string;
  now?: Date;
  /** Told as each step ends (the command's progress). */
  onStepDone?: (name: string) => void;
}

/**
 * Writes the demo data set through the areas' services on a started platform, and answers what it
 * made and what it found. Every item has a stable key (an id, an email, a slug, a name, an
 * idempotency key) looked up first, so a second run makes nothing; each step draws from its own
 * seeded generator, so a run draws the same values whatever an earlier one left.
 */
export async function seedDemo(platform: Platform, options: DemoSeedOptions): Promise<Tally> {
  const now = options.now ?? new Date();
  const players = demoPlayers(new SeededRandom(SEED), now, DEMO_PLAYER_COUNT);
  const tally = new Tally();
  for (const [index, [name, run]] of STEPS.entries()) {
    await run({
      platform,
      now,
      players,
      tally,
      userAgent: options.userAgent,
      random: new SeededRandom(SEED + index + 1),
    });
    options.onStepDone?.(name);
  }
  return tally;
}
