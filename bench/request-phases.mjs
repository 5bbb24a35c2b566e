// Where a served request's time goes, for the soak's probe (service-probe.mjs): waiting for a
// pooled database connection, waiting on queries, and the rest (the service's own work and its
// waits for the event loop). Plain JavaScript: it is loaded into the compiled service.
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

const REQUEST_START = 'http.server.request.start';
const RESPONSE_FINISH = 'http.server.response.finish';
/** Enough of a query's text to tell which one it was. */
const QUERY_TEXT_CHARS = 120;

const phase = () => ({ ms: 0, underWay: 0, since: 0 });
const queryText = (query) =>
  String(typeof query === 'string' ? query : (query?.text ?? ''))
    .replace(/\s+/g, ' ')
    .slice(0, QUERY_TEXT_CHARS);

/**
 * Calls `onRequest` with the phases of each request the process serves, from its headers parsed
 * to its response handed to the socket. `pg` is the node-postgres module the service uses: its
 * pool's `connect` and its client's `query` are wrapped while the trace runs. Answers a function
 * that puts everything back.
 *
 * A request's trace follows it through its async work (AsyncLocalStorage, entered when Node
 * starts the request, so it holds for the socket's later reads too). Each phase is wall time
 * while at least one of its kind is under way: two queries at once count once, so the phases of
 * a request never add up to more than twice its time (a query may overlap a pool wait).
 */
export function traceRequestPhases(pg, onRequest) {
  const current = new AsyncLocalStorage();
  const traces = new WeakMap();

  const onStart = ({ request }) => {
    const trace = {
      what: `${request.method} ${(request.url ?? '').split('?')[0]}`,
      startedAt: performance.now(),
      poolWait: phase(),
      query: phase(),
      queries: 0,
      slowestQuery: null,
      longestPoolWait: null,
    };
    traces.set(request, trace);
    current.enterWith(trace);
  };
  const onFinish = ({ request }) => {
    const trace = traces.get(request);
    if (trace === undefined) return;
    traces.delete(request);
    const ms = performance.now() - trace.startedAt;
    onRequest({
      what: trace.what,
      ms,
      poolWaitMs: trace.poolWait.ms,
      queryMs: trace.query.ms,
      queries: trace.queries,
      slowestQuery: trace.slowestQuery,
      longestPoolWait: trace.longestPoolWait,
    });
  };
  diagnosticsChannel.subscribe(REQUEST_START, onStart);
  diagnosticsChannel.subscribe(RESPONSE_FINISH, onFinish);

  /** Adds `promise`'s wall time to `phase`, save where another of the phase's was under way. */
  const timed = (promise, phase, onSettled = () => {}) => {
    const began = performance.now();
    if (phase.underWay === 0) phase.since = began;
    phase.underWay += 1;
    const settle = () => {
      const now = performance.now();
      phase.underWay -= 1;
      if (phase.underWay === 0) phase.ms += now - phase.since;
      onSettled(now - began);
    };
    promise.then(settle, settle);
    return promise;
  };

  const ownConnect = Object.hasOwn(pg.Pool.prototype, 'connect');
  const connect = pg.Pool.prototype.connect;
  pg.Pool.prototype.connect = function connectTimed(...args) {
    const trace = current.getStore();
    const result = connect.apply(this, args);
    if (trace === undefined || !(result instanceof Promise)) return result;
    // Which pool, by the session name it gives its connections (the service names its read and write pools).
    const pool = this.options?.application_name ?? 'unnamed';
    return timed(result, trace.poolWait, (ms) => {
      if (trace.longestPoolWait === null || ms > trace.longestPoolWait.ms) trace.longestPoolWait = { ms, pool };
    });
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function queryTimed(...args) {
    const trace = current.getStore();
    const result = query.apply(this, args);
    if (trace === undefined || !(result instanceof Promise)) return result;
    trace.queries += 1;
    return timed(result, trace.query, (ms) => {
      if (trace.slowestQuery === null || ms > trace.slowestQuery.ms)
        trace.slowestQuery = { ms, text: queryText(args[0]) };
    });
  };

  return () => {
    if (ownConnect) pg.Pool.prototype.connect = connect;
    else delete pg.Pool.prototype.connect;
    pg.Client.prototype.query = query;
    diagnosticsChannel.unsubscribe(REQUEST_START, onStart);
    diagnosticsChannel.unsubscribe(RESPONSE_FINISH, onFinish);
  };
}
