import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { exchange, TransportFailure, type HttpAnswer } from './http-transport.js';
import {
  RuntimeRefusedError,
  RuntimeUnavailableError,
  type CreatedRuntimeSession,
  type CreateRuntimePoolInput,
  type CreateRuntimeSessionInput,
  type ListRuntimeNodesFilter,
  type RuntimeClient,
  type RuntimeNode,
  type RuntimePool,
  type RuntimeSession,
  type UpdateRuntimePoolInput,
} from './index.js';
import {
  createdSessionSchema,
  errorBodySchema,
  healthSchema,
  nodeListSchema,
  nodeSchema,
  poolListSchema,
  poolSchema,
  pullAcceptedSchema,
  sessionSchema,
} from './wire.js';
import { inHttpClientSpan, recordHttpStatus, traceHeaders, type PeerCallMeter } from '../../lib/spans.js';

export interface HttpRuntimeClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Limit on reaching the runtime (TCP connect). */
  connectTimeoutMs: number;
  /** Limit on one attempt, from sending to the last byte of the answer. */
  timeoutMs: number;
  log: FastifyBaseLogger;
  /** Extra attempts of an idempotent call after a connection failure or a 5xx (default 2). */
  retries?: number;
  /** Where each attempt is measured, by operation and outcome (metrics on). */
  meter?: PeerCallMeter | undefined;
}

/** Pauses before the 1st, 2nd, … retry; later retries keep tripling up to the cap. */
const FIRST_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 2_000;
/** Kept-alive sockets idle longer than this are closed (below common server keep-alive limits). */
const IDLE_SOCKET_MS = 4_000;

interface RuntimeCall<T> {
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: unknown;
  answer: z.ZodType<T, unknown>;
  /** Safe to send again: the runtime ends in the same state however often it arrives. */
  idempotent: boolean;
}

type Attempt<T> = { value: T } | { failure: RuntimeUnavailableError; retryable: boolean; staleSocket: boolean };

/**
 * The Runtime service over HTTP (docs/runtime-api.md). Every answer is checked against the
 * contract. Idempotent calls are retried on connection failures and 5xx; a timed-out attempt is
 * not (a slow runtime is not helped by more load, and the caller's wait would multiply).
 * Failures map to RuntimeUnavailableError (retry later) or RuntimeRefusedError (the runtime's
 * 4xx code and message). The API key goes into the Authorization header and nowhere else.
 */
export class HttpRuntimeClient implements RuntimeClient {
  /** A private field: it stays out of enumeration, JSON and logged objects. */
  readonly #authorization: string;
  private readonly base: URL;
  /** The base URL's own path (a runtime behind a path prefix), without a trailing slash. */
  private readonly basePath: string;
  private readonly agent: http.Agent;
  private readonly retries: number;
  private readonly connectTimeoutMs: number;
  private readonly timeoutMs: number;
  private readonly log: FastifyBaseLogger;
  readonly #meter: PeerCallMeter | undefined;

  constructor(options: HttpRuntimeClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new Error(`runtime base URL must be http(s), not ${base.protocol}`);
    this.base = base;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.#authorization = `Bearer ${options.apiKey}`;
    this.retries = Math.max(0, options.retries ?? 2);
    this.connectTimeoutMs = options.connectTimeoutMs;
    this.timeoutMs = options.timeoutMs;
    this.log = options.log;
    this.#meter = options.meter;
    const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  listNodes(filter: ListRuntimeNodesFilter = {}): Promise<RuntimeNode[]> {
    const query = new URLSearchParams();
    if (filter.pool_id !== undefined) query.set('pool_id', filter.pool_id);
    if (filter.status !== undefined) query.set('status', filter.status);
    const search = query.size > 0 ? `?${query}` : '';
    return this.call({
      operation: 'listNodes',
      method: 'GET',
      path: `/v1/nodes${search}`,
      answer: nodeListSchema,
      idempotent: true,
    }).then((page) => page.data);
  }

  getNode(nodeId: string): Promise<RuntimeNode> {
    return this.call({
      operation: 'getNode',
      method: 'GET',
      path: `/v1/nodes/${segment(nodeId)}`,
      answer: nodeSchema,
      idempotent: true,
    });
  }

  async pullImage(nodeId: string, image: string): Promise<{ ok: boolean }> {
    const path = `/v1/nodes/${segment(nodeId)}/images`;
    const accepted = await this.call({
      operation: 'pullImage',
      method: 'POST',
      path,
      body: { image },
      answer: pullAcceptedSchema,
      idempotent: false,
    });
    return { ok: accepted.ok };
  }

  setNodeDraining(nodeId: string, draining: boolean): Promise<RuntimeNode> {
    const path = `/v1/nodes/${segment(nodeId)}/${draining ? 'drain' : 'undrain'}`;
    return this.call({ operation: 'setNodeDraining', method: 'POST', path, answer: nodeSchema, idempotent: true });
  }

  assignNodePool(nodeId: string, poolId: string | null): Promise<RuntimeNode> {
    const path = `/v1/nodes/${segment(nodeId)}/pool`;
    return this.call({
      operation: 'assignNodePool',
      method: 'PUT',
      path,
      body: { pool_id: poolId },
      answer: nodeSchema,
      idempotent: true,
    });
  }

  listPools(): Promise<RuntimePool[]> {
    return this.call({
      operation: 'listPools',
      method: 'GET',
      path: '/v1/pools',
      answer: poolListSchema,
      idempotent: true,
    }).then((page) => page.data);
  }

  getPool(poolId: string): Promise<RuntimePool> {
    return this.call({
      operation: 'getPool',
      method: 'GET',
      path: `/v1/pools/${segment(poolId)}`,
      answer: poolSchema,
      idempotent: true,
    });
  }

  createPool(input: CreateRuntimePoolInput): Promise<RuntimePool> {
    return this.call({
      operation: 'createPool',
      method: 'POST',
      path: '/v1/pools',
      body: input,
      answer: poolSchema,
      idempotent: false,
    });
  }

  updatePool(poolId: string, input: UpdateRuntimePoolInput): Promise<RuntimePool> {
    const path = `/v1/pools/${segment(poolId)}`;
    return this.call({
      operation: 'updatePool',
      method: 'PATCH',
      path,
      body: input,
      answer: poolSchema,
      idempotent: false,
    });
  }

  createSession(input: CreateRuntimeSessionInput): Promise<CreatedRuntimeSession> {
    // Idempotent by the session id the service chose: a repeat answers the same session.
    return this.call({
      operation: 'createSession',
      method: 'POST',
      path: '/v1/sessions',
      body: input,
      answer: createdSessionSchema,
      idempotent: true,
    });
  }

  getSession(sessionId: string): Promise<RuntimeSession> {
    return this.call({
      operation: 'getSession',
      method: 'GET',
      path: `/v1/sessions/${segment(sessionId)}`,
      answer: sessionSchema,
      idempotent: true,
    });
  }

  stopSession(sessionId: string): Promise<RuntimeSession> {
    const path = `/v1/sessions/${segment(sessionId)}/stop`;
    return this.call({ operation: 'stopSession', method: 'POST', path, answer: sessionSchema, idempotent: true });
  }

  async health(): Promise<void> {
    // Not retried: a probe measures the runtime as a caller finds it on one attempt.
    await this.call({
      operation: 'health',
      method: 'GET',
      path: '/v1/health',
      answer: healthSchema,
      idempotent: false,
    });
  }

  /** Closes kept-alive sockets (on shutdown). */
  close(): void {
    this.agent.destroy();
  }

  private async call<T>(call: RuntimeCall<T>): Promise<T> {
    let retriesLeft = call.idempotent ? this.retries : 0;
    let resentOnFreshSocket = false;
    for (let attempt = 1; ; attempt += 1) {
      const result = await this.attempt(call, attempt);
      if ('value' in result) return result.value;
      // The server closed a kept-alive socket as we reused it: the request never reached it,
      // so even a call that is not idempotent goes once more, on a new connection.
      if (result.staleSocket && !resentOnFreshSocket) {
        resentOnFreshSocket = true;
        continue;
      }
      if (!result.retryable || retriesLeft === 0) {
        const { failure } = result;
        throw attempt === 1
          ? failure
          : new RuntimeUnavailableError(
              failure.operation,
              `${failure.message} (after ${attempt} attempts)`,
              failure.status,
            );
      }
      const retryIndex = this.retries - retriesLeft;
      retriesLeft -= 1;
      await sleep(retryDelay(retryIndex));
    }
  }

  private async attempt<T>(call: RuntimeCall<T>, attempt: number): Promise<Attempt<T>> {
    const started = performance.now();
    const context = () => ({
      operation: call.operation,
      method: call.method,
      path: call.path,
      attempt,
      duration_ms: Math.round(performance.now() - started),
    });
    let answer: HttpAnswer;
    try {
      const path = `${this.basePath}${call.path}`;
      // One span per attempt, named by the operation: its path may hold a node's or session's id.
      answer = await inHttpClientSpan(
        `${call.method} ${call.operation}`,
        'runtime',
        call.method,
        new URL(path, this.base),
        async (measured) => {
          const answered = await exchange({
            method: call.method,
            origin: this.base,
            path,
            headers: traceHeaders({
              authorization: this.#authorization,
              accept: 'application/json',
              'user-agent': 'platform-api',
              ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
            }),
            body: call.body === undefined ? undefined : JSON.stringify(call.body),
            connectTimeoutMs: this.connectTimeoutMs,
            timeoutMs: this.timeoutMs,
            agent: this.agent,
          });
          recordHttpStatus(measured, answered.status);
          return answered;
        },
        this.#meter,
        call.operation,
      );
    } catch (error) {
      if (!(error instanceof TransportFailure)) throw error;
      const staleSocket =
        error.kind === 'network' && error.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      this.log.warn({ ...context(), status: null, reason: error.kind, error: error.message }, 'runtime call failed');
      return {
        failure: new RuntimeUnavailableError(call.operation, `runtime ${call.operation}: ${error.message}`),
        // A timed-out attempt may still be running there; waiting again would only double the wait.
        retryable: error.kind === 'network' || error.kind === 'connect_timeout',
        staleSocket,
      };
    }

    const { status } = answer;
    const unavailable = (reason: string, message: string, retryable = false): Attempt<T> => {
      this.log.warn({ ...context(), status, reason }, 'runtime call failed');
      return {
        failure: new RuntimeUnavailableError(call.operation, `runtime ${call.operation}: ${message}`, status),
        retryable,
        staleSocket: false,
      };
    };
    if (status >= 200 && status < 300) {
      const body = readJson(answer.text, call.answer);
      if (!body.ok) return unavailable('unreadable_answer', `unreadable answer (${status}): ${body.problem}`);
      this.log.debug({ ...context(), status }, 'runtime call');
      return { value: body.value };
    }
    if (status === 401 || status === 403) {
      // Our key is wrong or revoked: an operator must fix the configuration, the caller cannot.
      this.log.error({ ...context(), status }, 'the runtime refused our API key; check RUNTIME_API_KEY');
      return {
        failure: new RuntimeUnavailableError(
          call.operation,
          `runtime ${call.operation}: the runtime refused our API key (${status})`,
          status,
        ),
        retryable: false,
        staleSocket: false,
      };
    }
    if (status >= 400 && status < 500) {
      const body = readJson(answer.text, errorBodySchema);
      if (!body.ok) return unavailable('unreadable_answer', `unreadable ${status} answer: ${body.problem}`);
      const { code, message } = body.value.error;
      this.log.info({ ...context(), status, code }, 'runtime refused the request');
      throw new RuntimeRefusedError(call.operation, status, code, message);
    }
    return unavailable('status', `answered ${status}`, status >= 500);
  }
}

/** An id as one path segment: `/` and friends encoded, and `.`/`..` kept from meaning "up". */
function segment(id: string): string {
  return encodeURIComponent(id).replace(/\./g, '%2E');
}

function retryDelay(retryIndex: number): number {
  const delay = Math.min(FIRST_RETRY_DELAY_MS * 3 ** retryIndex, MAX_RETRY_DELAY_MS);
  // ±20 % jitter, so clients that failed together do not come back together.
  return Math.round(delay * (0.8 + Math.random() * 0.4));
}

function readJson<T>(
  text: string,
  schema: z.ZodType<T, unknown>,
): { ok: true; value: T } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0]!;
  return { ok: false, problem: `${issue.path.join('.') || 'body'}: ${issue.message}` };
}
