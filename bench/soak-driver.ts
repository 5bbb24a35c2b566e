import { Agent, request as httpRequest } from 'node:http';
import type autocannon from 'autocannon';
import { REQUEST_TIMEOUT_SECONDS } from './load.js';
import { mixRound, type MixKind } from './soak-mix.js';

/** An answer's status, or why there was none. */
export type Answer = number | 'socket error' | 'timeout';

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
/** Open loop: at most this many connections; past it requests wait for one (and the wait counts). */
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
 * Sends the soak's mix over keep-alive node:http connections, either as fast as a fixed number
 * of connections allows (closed loop: the maximum rate) or at a fixed rate whatever the answers
 * take (open loop: the soak). One source for both, so the rate measured is the rate driven.
 */
export class MixDriver {
  readonly #host: string;
  readonly #port: number;
  readonly #source: MixSource;
  #stopped = false;

  constructor(baseUrl: string, kinds: MixKind[]) {
    const url = new URL(baseUrl);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#source = new MixSource(kinds);
  }

  /** Ends the current run early (Ctrl-C): no new requests; the promise settles once those in flight end. */
  stop(): void {
    this.#stopped = true;
  }

  /** `connections` requests in flight at all times for `seconds`; resolves with the seconds it took. */
  async closedLoop(connections: number, seconds: number, onResult: OnResult): Promise<number> {
    const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
    const started = performance.now();
    const endAt = started + seconds * 1_000;
    const worker = async () => {
      while (!this.#stopped && performance.now() < endAt) {
        const { kind, params } = this.#source.next();
        const dueAt = performance.now();
        await new Promise<void>((resolve) => this.#send(agent, kind, params, dueAt, 0, (result) => { onResult(result); resolve(); }));
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    agent.destroy();
    return (performance.now() - started) / 1_000;
  }

  /**
   * `rate` requests per second, evenly spaced, for `seconds`, whatever the answers take; resolves
   * once every request has an answer or has failed (at most the 10 s timeout after the last).
   * `origin`: when the schedule starts (`performance.now()` clock), so the caller's clock is the same.
   */
  openLoop(rate: number, seconds: number, onResult: OnResult, origin = performance.now()): Promise<{ scheduled: number; sent: number }> {
    const agent = new Agent({ keepAlive: true, maxSockets: OPEN_LOOP_MAX_SOCKETS, maxFreeSockets: OPEN_LOOP_MAX_SOCKETS, scheduling: 'lifo' });
    const intervalMs = 1_000 / rate;
    const total = Math.round(rate * seconds);
    const started = origin;
    let sent = 0;
    let inFlight = 0;
    let scheduling = true;
    return new Promise((resolve) => {
      const finishIfDone = () => {
        if (scheduling || inFlight > 0) return;
        agent.destroy();
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
          this.#send(agent, kind, params, dueAt, now - dueAt, done);
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

  #send(agent: Agent, kind: number, params: autocannon.RequestParams, dueAt: number, lagMs: number, done: (result: RequestResult) => void): void {
    let finished = false;
    const finish = (answer: Answer) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      done({ kind, answer, latencyMs: performance.now() - dueAt, dueAt, lagMs });
    };
    const body = params.body;
    const headers = body === undefined ? params.headers : { ...params.headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = httpRequest({ host: this.#host, port: this.#port, method: params.method, path: params.path, headers, agent }, (response) => {
      response.on('end', () => finish(response.statusCode ?? 0));
      response.on('error', () => finish('socket error'));
      response.resume();
    });
    request.on('error', () => finish('socket error'));
    // Counted from when it was due, like the latency: a request stuck behind busy connections times out too.
    const timer = setTimeout(() => {
      finish('timeout');
      request.destroy();
    }, Math.max(0, TIMEOUT_MS - (performance.now() - dueAt)));
    request.end(body);
  }
}
