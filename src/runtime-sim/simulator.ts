import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RuntimeNode, RuntimeNodeStatus, RuntimePool } from '../adapters/runtime/index.js';
import { errorBody, registerRuntimeRoutes, runtimeErrorHandler } from './routes.js';
import { SimulatorState, type NewSimulatedNode, type SimulatedSession } from './state.js';

export type { NewSimulatedNode, SimulatedSession } from './state.js';

export interface RuntimeSimulatorOptions {
  /** Required; the Bearer key every route but `GET /v1/health` demands. */
  apiKey: string;
  /** How long an image pull takes (default 1500 ms). */
  pullDelayMs: number;
  /**
   * Default true: pool `default` ("Default pool") with nodes `node-1` and `node-2`, 4 slots
   * each, ready, region `local`, image `games/base:latest` ready on both.
   */
  seed: boolean;
  now?: () => Date;
}

export const SEEDED_POOL_ID = 'default';
export const SEEDED_NODE_IDS = ['node-1', 'node-2'] as const;
export const SEEDED_IMAGE = 'games/base:latest';

/**
 * A stand-in for the Runtime service: the HTTP API of docs/runtime-api.md on its own Fastify
 * instance (logger off), with the fleet in memory. The embedded default runs one in-process and
 * reaches it over loopback through the real HTTP client; `platform-api runtime-sim` runs one alone.
 *
 * Besides the API it has a control surface for tests (plain methods, no HTTP):
 * - `addNode(...)`, `addPool(...)`, `setNodeStatus(id, status)`: shape the fleet; a node set
 *   `offline` fails the sessions running on it.
 * - `node(id)`, `pool(id)`, `session(id)`, `sessions()`: read the state (copies; a session
 *   includes its `member_token`, `game`, `limits` and the pool asked for).
 * - `settlePulls()`: finish every pending image pull now.
 * - `failNextRequests(count, status = 503)`: answer the next `count` calls under `/v1/` with
 *   `status` and `{ error: { code: 'simulated_failure' } }`, before auth and before handling.
 * - `setLatency(ms)`: hold every request `ms` before handling it (timeout tests).
 * - `requestLog()` / `clearRequestLog()`: `"METHOD /path?query"` of every request received.
 */
export class RuntimeSimulator {
  readonly apiKey: string;
  private readonly keyDigest: Buffer;
  private readonly state: SimulatorState;
  private readonly app: FastifyInstance;
  private readonly closing = new AbortController();
  private address: string | undefined;
  private closed: Promise<void> | undefined;
  private failures = { remaining: 0, status: 503 };
  private latencyMs = 0;
  private received: string[] = [];

  constructor(options: Partial<RuntimeSimulatorOptions> & { apiKey: string }) {
    if (typeof options.apiKey !== 'string' || options.apiKey.length === 0)
      throw new Error('RuntimeSimulator: apiKey is required');
    this.apiKey = options.apiKey;
    this.keyDigest = digest(options.apiKey);
    this.state = new SimulatorState({
      now: options.now ?? (() => new Date()),
      pullDelayMs: options.pullDelayMs ?? 1_500,
      playUrl: (sessionId) => `${this.url}/play/${encodeURIComponent(sessionId)}`,
    });
    if (options.seed ?? true) this.seed();

    // forceCloseConnections: close() must not wait for idle keep-alive sockets or held requests.
    this.app = Fastify({
      logger: false,
      routerOptions: { maxParamLength: 500 },
      forceCloseConnections: true,
      bodyLimit: 1_048_576,
    });
    // The API speaks JSON only: a text body is 415, not a string the handlers would misread.
    this.app.removeContentTypeParser('text/plain');
    this.app.addHook('onRequest', (request, reply) => this.gate(request, reply));
    this.app.setErrorHandler(runtimeErrorHandler);
    this.app.setNotFoundHandler((request, reply) => {
      void reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
    });
    registerRuntimeRoutes(this.app, this.state);
  }

  /** The base URL once listening (`http://127.0.0.1:41234`). */
  get url(): string {
    if (this.address === undefined) throw new Error('RuntimeSimulator: not listening');
    return this.address;
  }

  /** Starts serving; resolves the base URL (a wildcard host is reached through loopback). */
  async listen(host: string, port: number): Promise<string> {
    await this.app.listen({ host, port });
    const bound = this.app.server.address() as AddressInfo;
    const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
    this.address = `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${bound.port}`;
    return this.address;
  }

  /** Stops serving and cancels pending pulls and held requests. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort();
      this.state.close();
      await this.app.close();
    })();
    return this.closed;
  }

  // --- control API (tests) -------------------------------------------------------------------

  addNode(node: NewSimulatedNode): RuntimeNode {
    return this.state.addNode(node);
  }

  addPool(pool: { id: string; name: string; description?: string | null }): RuntimePool {
    return this.state.createPool(pool);
  }

  setNodeStatus(nodeId: string, status: RuntimeNodeStatus): RuntimeNode {
    return this.state.setNodeStatus(nodeId, status);
  }

  node(nodeId: string): RuntimeNode | undefined {
    return this.state.findNode(nodeId);
  }

  pool(poolId: string): RuntimePool | undefined {
    return this.state.findPool(poolId);
  }

  session(sessionId: string): SimulatedSession | undefined {
    return this.state.findSession(sessionId);
  }

  sessions(): SimulatedSession[] {
    return this.state.allSessions();
  }

  settlePulls(): void {
    this.state.settlePulls();
  }

  failNextRequests(count: number, status = 503): void {
    this.failures = { remaining: count, status };
  }

  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  requestLog(): string[] {
    return [...this.received];
  }

  clearRequestLog(): void {
    this.received = [];
  }

  // --- internals -----------------------------------------------------------------------------

  private seed(): void {
    this.state.createPool({ id: SEEDED_POOL_ID, name: 'Default pool', description: null });
    for (const id of SEEDED_NODE_IDS)
      this.state.addNode({ id, pool_id: SEEDED_POOL_ID, slots: 4, region: 'local', images: [SEEDED_IMAGE] });
  }

  /** Runs before routing: logs, delays, injects failures, then demands the key. */
  private async gate(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    this.received.push(`${request.method} ${request.url}`);
    if (this.latencyMs > 0)
      await sleep(this.latencyMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
    const path = request.url.split('?')[0]!;
    if (!path.startsWith('/v1/')) return undefined;
    if (this.failures.remaining > 0) {
      this.failures.remaining -= 1;
      return reply
        .code(this.failures.status)
        .send(errorBody('simulated_failure', 'the runtime simulator was told to fail this request'));
    }
    if (path === '/v1/health' || this.keyMatches(request.headers.authorization)) return undefined;
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send(errorBody('unauthorized', 'a valid API key is required (Authorization: Bearer <key>)'));
  }

  /** Compares digests in constant time, so timing reveals neither the key nor its length. */
  private keyMatches(header: string | undefined): boolean {
    const presented = /^Bearer[ \t]+(.*\S)[ \t]*$/i.exec(header ?? '')?.[1];
    const matches = timingSafeEqual(digest(presented ?? ''), this.keyDigest);
    return presented !== undefined && matches;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
