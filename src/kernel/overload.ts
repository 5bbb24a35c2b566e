import type { FastifyReply, FastifyRequest } from 'fastify';
import { overloaded } from './errors.js';

/**
 * Load shedding by the number of requests under way in this process. Past capacity, work
 * queues inside the process (waiting for a core, a pooled connection, the database); every
 * request then waits behind every other, answers arrive after the clients have given up, and
 * the instance serves nobody in time. Past `max` requests in flight, a new one is answered at once
 * with 503 `unavailable` (`details.reason: 'overloaded'`, `Retry-After: 1`) before any work (no
 * token check, no query), so the ones admitted finish in time and a load balancer or client
 * can retry elsewhere or later. Event-loop delay was not used as the signal: on a saturated loop
 * it stays at one turn's work whatever the backlog (the soak, bench/README.md).
 *
 * `/health` is always admitted: a load balancer that saw it fail would take the instance out
 * and pile its load onto the others.
 */
export class InFlightLimit {
  #inFlight = 0;

  /** `max` 0: no limit. */
  constructor(readonly max: number) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  /** False when the request must be refused; otherwise it counts until `leave`. */
  tryEnter(): boolean {
    if (this.max > 0 && this.#inFlight >= this.max) return false;
    this.#inFlight += 1;
    return true;
  }

  leave(): void {
    this.#inFlight -= 1;
  }
}

/** The refusal past the limit. */
export { overloaded };

/**
 * Admits a request into the count (until its response is sent or abandoned) or says it must be
 * refused. `/health` is admitted uncounted.
 */
export function admitRequest(limit: InFlightLimit, request: FastifyRequest, reply: FastifyReply): boolean {
  if (limit.max === 0 || request.routeOptions.url === '/health') return true;
  if (!limit.tryEnter()) return false;
  // 'close' comes once per response, whether sent or abandoned by the client.
  reply.raw.once('close', () => limit.leave());
  return true;
}
