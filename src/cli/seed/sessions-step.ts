import type { Insertable } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import { spendCredits } from '../../modules/billing/credits/ledger.js';
import type { GameSessionsTable } from '../../modules/game-sessions/tables.js';
import { createPoolBody } from '../../modules/runtime/schemas.js';
import { RuntimeAdminService } from '../../modules/runtime/service.js';
import { staffActor, type SeedContext } from './context.js';
import { daysAgo } from './random.js';
import { insertMissingSessions, publishedGames } from './queries.js';

const OPS = 'sam.ops.demo@example.com';
const MINUTE_MS = 60_000;
/** The embedded runtime simulator's own pool and nodes (src/runtime-sim): what its console shows. */
const SIMULATOR_POOL = { id: 'default', nodes: ['node-1', 'node-2'] };
const DEMO_POOLS = [
  { id: 'demo-shared', name: 'Shared (demo)', description: 'Standard and Plus sessions.' },
  { id: 'demo-priority', name: 'Priority (demo)', description: 'Pro sessions.' },
];
const CREDITS_PER_SESSION = [10, 20, 30];

/** The seed's session ids: uuid-shaped, drawn from the seeded generator, so the same every run. */
function sessionId(draw: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(draw() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/**
 * Runtime pools where they last (a runtime service at RUNTIME_URL; the embedded simulator keeps
 * its fleet in memory, so there the history uses its own pool), past sessions of the demo
 * players, and the credits some of them spent on play (the ledger's draws).
 */
export async function seedSessions(context: SeedContext): Promise<void> {
  const { platform, tally, players, random, now } = context;
  let pools: Array<{ id: string; nodes: Array<string | null> }>;
  if (platform.runtimeSimulator === undefined) {
    const runtime = new RuntimeAdminService(platform.write, platform.runtime);
    const existing = new Set((await runtime.listPools()).data.map((pool) => pool.id));
    for (const pool of DEMO_POOLS) {
      tally.count('runtime pools', !existing.has(pool.id));
      if (!existing.has(pool.id)) await runtime.createPool(staffActor(context, OPS), createPoolBody.parse(pool));
    }
    pools = DEMO_POOLS.map((pool) => ({ id: pool.id, nodes: [null] }));
  } else {
    tally.skipped(
      'runtime pools',
      'the embedded runtime simulator keeps pools in memory: set RUNTIME_URL to seed them',
    );
    pools = [SIMULATOR_POOL];
  }

  const games = await publishedGames(platform.db);
  const sessions: Insertable<GameSessionsTable>[] = [];
  const spends: Array<{ userId: string; sessionId: string; amount: number; title: string }> = [];
  for (const player of players) {
    const count = random.int(0, 12);
    for (let n = 0; n < count; n++) {
      const id = sessionId(() => random.next());
      const game = random.pick(games);
      const pool = random.pick(pools);
      const createdAt = daysAgo(random, now, random.int(1, 120));
      const failed = random.chance(0.05);
      const minutes = random.int(8, 180);
      sessions.push({
        id,
        user_id: player.id,
        game_id: game.id,
        game_slug: game.slug,
        game_title: game.title,
        pool_id: pool.id,
        node_id: failed ? null : random.pick(pool.nodes),
        status: failed ? 'failed' : 'ended',
        end_reason: failed
          ? 'start_failed'
          : random.pick(['user_stopped', 'user_stopped', 'user_stopped', 'runtime_ended']),
        play_url: null,
        created_at: createdAt,
        started_at: failed ? null : new Date(createdAt.getTime() + 4_000),
        ended_at: new Date(createdAt.getTime() + (failed ? 30_000 : minutes * MINUTE_MS)),
      });
      if (!failed && random.chance(0.4))
        spends.push({ userId: player.id, sessionId: id, amount: random.pick(CREDITS_PER_SESSION), title: game.title });
    }
  }
  if (games.length > 0) {
    const made = await insertMissingSessions(platform.db, sessions);
    tally.created('game sessions', made);
    tally.existing('game sessions', sessions.length - made);
  }

  // Play paid with credits: each a spend drawn from the player's lots, keyed by its session.
  for (const spend of spends) {
    try {
      const result = await platform.write(({ trx }) =>
        spendCredits(trx, {
          userId: spend.userId,
          amount: spend.amount,
          actorId: null,
          reason: `Played ${spend.title}`,
          referenceType: 'game_session',
          referenceId: spend.sessionId,
          idempotencyKey: `demo-seed-spend-${spend.sessionId}`,
        }),
      );
      tally.count('credit spends', !result.replayed);
    } catch (error) {
      // A player whose balance earlier spends used up played that session on their plan.
      if (!(error instanceof AppError && error.code === 'insufficient_credits')) throw error;
    }
  }
}
