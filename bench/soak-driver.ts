import type autocannon from 'autocannon';
import { Http1Pool, type Answer } from './http1-pool.js';
import { REQUEST_TIMEOUT_SECONDS } from './load.js';
import { mixRound, type MixKind } from './soak-mix.js';

export type { Answer } from './http1-pool.js';

export interface RequestResult {
  /** Index into the mix's kinds. */
  kind: number;
  answer: Answer;
  /**
   * From the moment the request was due to the last byte of its answer (or the failure). Open
   * loop: due is its slot in the fixed-rate schedule, so time spent waiting for the generator or
   * for a free connection counts (no coordinated omission). Closed loop: due is when it was sent.
   */
  latencyMs: number;
  /** When it was due, on the `performance.now()` clock. */
  dueAt: number;
  /** How late the generator handed it to a connection (its own event loop or CPU falling behind). */
  lagMs: number;
}

export type OnResult = (result: RequestResult) => void;

const TIMEOUT_MS = REQUEST_TIMEOUT_SECONDS * 1_000;
/** Open loop: at most this many connections to each instance; past it requests wait for one (and the wait counts). */
export const OPEN_LOOP_MAX_SOCKETS = 256;

/** Walks the mix: one round of weighted slots after another; each kind numbers its own requests. */
class MixSource {
  readonly #kinds: MixKind[];
  readonly #round: number[];
  readonly #counts: number[];
  #slot = 0;

  constructor(kinds: MixKind[]) {
    this.#kinds = kinds;
    this.#round = mixRound(kinds);
    this.#counts = kinds.map(() => 0);
  }

  next(): { kind: number; params: autocannon.RequestParams } {
    const kind = this.#round[this.#slot % this.#round.length]!;
    this.#slot += 1;
    const n = this.#counts[kind]!;
    this.#counts[kind] = n + 1;
    return { kind, params: this.#kinds[kind]!.at(n) };
  }
}

/**
 * Sends the soak's mix over keep-alive HTTP/1.1 connections (`Http1Pool`), either as fast as a fixed number
 * of connections allows (closed loop: the maximum rate) or at a fixed rate whatever the answers
 * take (open loop: the soak). One source for both, so the rate measured is the rate driven.
 */
export class MixDriver {
  readonly #servers: { host: string; port: number }[];
  readonly #source: MixSource;
  #stopped = false;

  /** `baseUrls`: the service's instances; requests go to each in turn, as a round-robin load balancer sends them. */
  constructor(baseUrls: readonly string[], kinds: MixKind[]) {
    if (baseUrls.length === 0) throw new Error('MixDriver: no server to send to');
    this.#servers = baseUrls.map((baseUrl) => {
      const url = new URL(baseUrl);
      return { host: url.hostname, port: Number(url.port) };
    });
    this.#source = new MixSource(kinds);
  }

  /** One pool of up to `maxConnections` per instance, taken in turn. */
  #pools(maxConnections: number): { next(): Http1Pool; destroy(): void } {
    const pools = this.#servers.map(({ host, port }) => new Http1Pool(host, port, maxConnections));
    let turn = 0;
    return {
      next: () => pools[turn++ % pools.length]!,
      destroy: () => {
        for (const pool of pools) pool.destroy();
      },
    };
  }

  /** Ends the current run early (Ctrl-C): no new requests; the promise settles once those in flight end. */
  stop(): void {
    this.#stopped = true;
  }

  /** True once `stop()` was called: a caller with runs to come should not start them. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** `connections` requests in flight at all times for `seconds`; resolves with the seconds it took. */
  async closedLoop(connections: number, seconds: number, onResult: OnResult): Promise<number> {
    const pools = this.#pools(connections);
    const started = performance.now();
    const endAt = started + seconds * 1_000;
    const worker = async () => {
      while (!this.#stopped && performance.now() < endAt) {
        const { kind, params } = this.#source.next();
        const dueAt = performance.now();
        await new Promise<void>((resolve) =>
          this.#send(pools.next(), kind, params, dueAt, 0, (result) => {
            onResult(result);
            resolve();
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    pools.destroy();
    return (performance.now() - started) / 1_000;
  }

  /**
   * `rate` requests per second, evenly spaced, for `seconds`, whatever the answers take; resolves
   * once every request has an answer or has failed (at most the 10 s timeout after the last).
   * `origin`: when the schedule starts (`performance.now()` clock), so the caller's clock is the same.
   */
  openLoop(
    rate: number,
    seconds: number,
    onResult: OnResult,
    origin = performance.now(),
  ): Promise<{ scheduled: number; sent: number }> {
    const pools = this.#pools(OPEN_LOOP_MAX_SOCKETS);
    const intervalMs = 1_000 / rate;
    const total = Math.round(rate * seconds);
    const started = origin;
    let sent = 0;
    let inFlight = 0;
    let scheduling = true;
    return new Promise((resolve) => {
      const finishIfDone = () => {
        if (scheduling || inFlight > 0) return;
        pools.destroy();
        resolve({ scheduled: total, sent });
      };
      const done = (result: RequestResult) => {
        inFlight -= 1;
        onResult(result);
        finishIfDone();
      };
      const tick = () => {
        const now = performance.now();
        const due = this.#stopped ? sent : Math.min(total, Math.floor((now - started) / intervalMs) + 1);
        while (sent < due) {
          const dueAt = started + sent * intervalMs;
          const { kind, params } = this.#source.next();
          inFlight += 1;
          sent += 1;
          this.#send(pools.next(), kind, params, dueAt, now - dueAt, done);
        }
        if (sent < total && !this.#stopped) {
          setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
        } else {
          scheduling = false;
          finishIfDone();
        }
      };
      tick();
    });
  }

  #send(
    pool: Http1Pool,
    kind: number,
    params: autocannon.RequestParams,
    dueAt: number,
    lagMs: number,
    done: (result: RequestResult) => void,
  ): void {
    // Counted from when it was due, like the latency: a request stuck behind busy connections times out too.
    pool.request(params, dueAt + TIMEOUT_MS, (answer: Answer) =>
      done({ kind, answer, latencyMs: performance.now() - dueAt, dueAt, lagMs }),
    );
  }
}
