import type autocannon from 'autocannon';
import { requestSequence, type LoadRequest } from './load.js';
import { SCENARIOS, bearer, type BenchContext } from './scenarios.js';

/** One kind of request in the soak's mix. */
export interface MixKind {
  name: string;
  /** Requests of this kind per 100 of the mix. */
  weight: number;
  /** Every answer must have this status; any other one (or none) is an error. */
  expectedStatus: number;
  /** The bench's p99 bound for this request, where the issue gives one. */
  maxP99Ms?: number;
  /** The n-th request of this kind (n counts this kind's requests only). */
  at(n: number): autocannon.RequestParams;
}

/**
 * The soak's traffic, per 100 requests: mostly signed-in players (their profile and permissions,
 * 1,000 of them in turn, now and then changing their display name), visitors on the public site
 * and store, the load balancer's health probe, and a few staff on the users list, the audit log
 * and achievements (each PATCH really changes one). The requests are the bench scenarios' own
 * (same paths, tokens and bodies); `PATCH /v1/me` outside lockdown is the only one of its own.
 */
const WEIGHTS: [name: string, weight: number][] = [
  ['GET /health', 6],
  ['GET /v1/public/site', 20],
  ['GET /v1/public/store/games', 18],
  ['GET /v1/me', 26],
  ['GET /v1/me/permissions', 15],
  ['PATCH /v1/me', 4],
  ['GET /v1/admin/users (page 1, with total)', 5],
  ['GET /v1/admin/audit?action=users.*', 2],
  ['PATCH /v1/admin/catalog/achievements/{id}', 4],
];

/** A player renames themselves: every request changes the name, so each one writes. */
function renamePlayer({ playerTokens }: BenchContext): LoadRequest {
  return {
    method: 'PATCH',
    path: '/v1/me',
    body: { display_name: 'Soak player' },
    vary: (n) => ({
      headers: bearer(playerTokens[n % playerTokens.length]!),
      body: { display_name: `Soak player ${n}` },
    }),
  };
}

export function soakMix(context: BenchContext): MixKind[] {
  return WEIGHTS.map(([name, weight]) => {
    if (name === 'PATCH /v1/me')
      return { name, weight, expectedStatus: 200, at: requestSequence(renamePlayer(context)) };
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (scenario === undefined) throw new Error(`soak mix: no bench scenario named ${name}`);
    return {
      name,
      weight,
      expectedStatus: scenario.expectedStatus,
      ...(scenario.soakMaxP99Ms === undefined ? {} : { maxP99Ms: scenario.soakMaxP99Ms }),
      at: requestSequence(scenario.request(context)),
    };
  });
}

/**
 * The order of one round of the mix (as many slots as the weights add up to): smooth weighted
 * round-robin, so each kind is spread evenly through the round instead of coming in runs.
 */
export function mixRound(kinds: MixKind[]): number[] {
  const total = kinds.reduce((sum, kind) => sum + kind.weight, 0);
  const current = kinds.map(() => 0);
  const round: number[] = [];
  for (let slot = 0; slot < total; slot += 1) {
    let best = 0;
    kinds.forEach((kind, i) => {
      current[i]! += kind.weight;
      if (current[i]! > current[best]!) best = i;
    });
    current[best]! -= total;
    round.push(best);
  }
  return round;
}
