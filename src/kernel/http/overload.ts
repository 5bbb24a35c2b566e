import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Load shedding by the number of requests under way in this process. Past capacity, work
 * queues inside the process (waiting for a core, a pooled connection, the database); every
 * request then waits behind every other, answers arrive after the clients have given up, and
 * the instance serves nobody in time. Past `max` requests in flight, a new one is answered at once
 * with 503 `unavailable` (`details.reason: 'overloaded'`, `Retry-After: 1`) before any work (no
 * token check, no query), so the ones admitted finish in time and a load balancer or client
 * can retry elsewhere or later. Event-loop delay was not used as the signal: on a saturated loop
 * it stays at one turn's work whatever the backlog (the soak,
 * docs/decisions/0020-overload-shed-by-requests-in-flight.md).
 *
 * The health routes are always admitted: a load balancer that saw them fail would take the
 * instance out and pile its load onto the others (health-routes.ts).
 */
export class InFlightLimit {
  #inFlight = 0;
  /** Upgrade requests still counted, by raw request: their release once the connection is upgraded. */
  readonly #upgrading = new WeakMap<IncomingMessage, () => void>();

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

  /**
   * An upgrade request counts while it is a request (its hooks, its handshake), not for the life
   * of the connection it becomes: an open WebSocket is no request in flight (realtime sockets have
   * caps of their own). Counted until `upgraded`, or until the connection closes first.
   */
  countUntilUpgraded(request: IncomingMessage, response: ServerResponse): void {
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.#upgrading.delete(request);
      this.leave();
    };
    this.#upgrading.set(request, release);
    response.once('close', release);
  }

  /** The request's connection is now a WebSocket: it no longer counts. */
  upgraded(request: IncomingMessage): void {
    this.#upgrading.get(request)?.();
  }
}

/** Node marks a request asking to switch protocols (`Connection: upgrade`); its typings do not say so. */
const isUpgrade = (request: IncomingMessage) => (request as IncomingMessage & { upgrade?: boolean }).upgrade === true;

/**
 * Admits a request into the count (until its response is sent or abandoned, or its connection
 * is upgraded) or says it must be refused. The health routes are admitted uncounted (`health`:
 * the route is one, worked out at start: request-pipeline.ts).
 */
export function admitRequest(
  limit: InFlightLimit,
  request: FastifyRequest,
  reply: FastifyReply,
  health: boolean,
): boolean {
  if (limit.max === 0 || health) return true;
  if (!limit.tryEnter()) return false;
  if (isUpgrade(request.raw)) limit.countUntilUpgraded(request.raw, reply.raw);
  // 'close' comes once per response, whether sent or abandoned by the client.
  else reply.raw.once('close', () => limit.leave());
  return true;
}
