import autocannon from 'autocannon';
import { runWrk, type RawRequest } from './wrk.js';

/** What replaces the path, headers (merged) or body of one request. */
export interface RequestChange {
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What one scenario sends. */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /**
   * Built once; each connection sends them in turn (rotating tokens). Costs the load generator
   * nothing per request, unlike `vary`.
   */
  variants?: RequestChange[];
  /**
   * Called for the n-th request (numbered across warm-up and measured run), for writes where no
   * two requests may be alike. Rebuilding every request costs autocannon about a third of its
   * rate, so cheap routes use `variants` instead.
   */
  vary?: (n: number) => RequestChange;
}

/** `wrk` when installed (C, light on CPU); autocannon otherwise (the bench prints a note). */
export type LoadGenerator = 'wrk' | 'autocannon';

export interface LoadSettings {
  generator: LoadGenerator;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers by status code, plus `errors` (connection failures) and `timeouts` when there were any. */
  statuses: Record<string, number>;
  total: number;
  /** CPU milliseconds of a generator in a process of its own (wrk); autocannon's show in this process. */
  generatorCpuMs?: number;
}

/** A request without an answer after this long counts as a timeout (the soak uses the same bound). */
export const REQUEST_TIMEOUT_SECONDS = 10;

function headersOf(request: { headers?: Record<string, string>; body?: unknown }): Record<string, string> {
  return request.body === undefined
    ? { ...request.headers }
    : { 'content-type': 'application/json', ...request.headers };
}

function encode(body: unknown): string | undefined {
  return body === undefined ? undefined : JSON.stringify(body);
}

function applied(base: autocannon.RequestParams, change: RequestChange): autocannon.RequestParams {
  const body = change.body === undefined ? base.body : encode(change.body);
  return {
    ...base,
    path: change.path ?? base.path,
    headers: { ...base.headers, ...change.headers },
    ...(body === undefined ? {} : { body }),
  };
}

/**
 * The request as autocannon would first send it: method, path, headers (with the JSON content type) and encoded body.
 */
function baseParams(request: LoadRequest): autocannon.RequestParams {
  return {
    method: request.method,
    path: request.path,
    headers: headersOf(request),
    ...(request.body === undefined ? {} : { body: encode(request.body) }),
  };
}

/**
 * The n-th request of a load, for drivers other than autocannon (the soak's mix): the variants
 * in turn (built once), then `vary(n)` applied on top, so `n` walks them as a connection would.
 */
export function requestSequence(request: LoadRequest): (n: number) => autocannon.RequestParams {
  const base = baseParams(request);
  const variants = request.variants?.map((change) => applied(base, change)) ?? [base];
  const { vary } = request;
  return (n) => {
    const params = variants[n % variants.length]!;
    return vary === undefined ? params : applied(params, vary(n));
  };
}

/**
 * wrk sends requests written out beforehand, so a `vary` load gets this many, numbered on from
 * the previous run's; they repeat after that within one run (about two runs' worth of the
 * slowest write at its rate).
 */
const VARIED_REQUESTS_PER_RUN = 20_000;

function wrkRequests(request: LoadRequest, next: () => number): RawRequest[] {
  const sequence = requestSequence(request);
  const count = request.vary !== undefined ? VARIED_REQUESTS_PER_RUN : (request.variants?.length ?? 1);
  return Array.from({ length: count }, (_, i) => {
    const params = sequence(request.vary !== undefined ? next() : i);
    return {
      method: params.method ?? 'GET',
      path: params.path ?? '/',
      headers: (params.headers ?? {}) as Record<string, string>,
      ...(typeof params.body === 'string' ? { body: params.body } : {}),
    };
  });
}

async function runWithWrk(
  baseUrl: string,
  request: LoadRequest,
  connections: number,
  seconds: number,
  next: () => number,
): Promise<LoadResult> {
  const result = await runWrk(baseUrl, wrkRequests(request, next), connections, seconds, REQUEST_TIMEOUT_SECONDS);
  return {
    requestsPerSecond: result.total / result.seconds,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    statuses: result.statuses,
    total: result.total,
    generatorCpuMs: result.cpuMs,
  };
}

/** `next` numbers requests across the warm-up and the measured run, so `vary` never repeats itself. */
function run(
  baseUrl: string,
  request: LoadRequest,
  connections: number,
  seconds: number,
  next: () => number,
): Promise<autocannon.Result> {
  const base = baseParams(request);
  let requests: autocannon.Request[] = [base];
  if (request.variants !== undefined) requests = request.variants.map((change) => applied(base, change));
  if (request.vary !== undefined)
    requests = [{ ...base, setupRequest: (params) => applied(params, request.vary!(next())) }];
  const options: autocannon.Options = {
    url: baseUrl,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: REQUEST_TIMEOUT_SECONDS,
    requests,
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export interface Load {
  /** A run whose answers are discarded: JIT, caches and connection pools settle first. */
  warmUp(): Promise<void>;
  /** The measured run. */
  measure(): Promise<LoadResult>;
}

/** One scenario's load; its requests are numbered across the warm-up and the measured run. */
export function prepareLoad(baseUrl: string, request: LoadRequest, settings: LoadSettings): Load {
  let n = 0;
  const next = () => n++;
  return {
    async warmUp() {
      if (settings.warmupSeconds <= 0) return;
      if (settings.generator === 'wrk')
        await runWithWrk(baseUrl, request, settings.connections, settings.warmupSeconds, next);
      else await run(baseUrl, request, settings.connections, settings.warmupSeconds, next);
    },
    async measure() {
      if (settings.generator === 'wrk')
        return runWithWrk(baseUrl, request, settings.connections, settings.durationSeconds, next);
      const result = await run(baseUrl, request, settings.connections, settings.durationSeconds, next);
      const statuses: Record<string, number> = {};
      for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
      if (result.errors > 0) statuses.errors = result.errors;
      if (result.timeouts > 0) statuses.timeouts = result.timeouts;
      const total = Object.values(result.statusCodeStats).reduce((sum, { count }) => sum + count, 0);
      return {
        requestsPerSecond: total / result.duration,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        statuses,
        total,
      };
    },
  };
}
