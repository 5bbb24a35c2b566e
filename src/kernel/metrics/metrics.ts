import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUsage } from '../../db/database.js';
import type { PeerCallMeter, PeerCallOutcome } from '../../lib/spans.js';
import type { JobOutcome } from '../areas/jobs.js';
import type { PanicLevel } from '../../db/tables.js';
import { PANIC_LEVELS, type PanicState } from '../maintenance.js';
import { RATE_LIMITS, type RateLimitName } from '../rate-limits.js';

/** What the metrics read at scrape time rather than count as it happens. */
export interface MetricSources {
  /** The maintenance level this instance enforces, and whether the incident rules set it. */
  maintenance: () => PanicState;
  /** The database pools' sessions now (none on the embedded database). */
  databasePools: () => PoolUsage[];
}

/** Where the metrics say what went wrong reading a scrape-time query (a warn, once per failing spell). */
export interface MetricsLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** Label names to every value each may take: a counter's series, fixed when it is declared. */
export type LabelValues = Readonly<Record<string, readonly string[]>>;

/** One value per label, each from the label's declared values. */
export type LabelsOf<Labels extends LabelValues> = { [Name in keyof Labels]: Labels[Name][number] };

/** Adds `by` (1 unless given) to the series of these label values. */
export type Count<Labels extends LabelValues> = (labels: LabelsOf<Labels>, by?: number) => void;

/**
 * The longest a scrape waits for one area's query: a database slow or away leaves that gauge out
 * of the scrape rather than holding it (Prometheus gives up on a scrape after 10 s by default).
 */
export const SCRAPE_QUERY_TIMEOUT_MS = 2_000;

/** A request refused before its work: the label values of `http_refusals_total`. */
export type Refusal =
  | { reason: 'rate_limit'; rule: RateLimitName }
  | { reason: 'maintenance'; level: Exclude<PanicLevel, 'off'> }
  | { reason: 'overload' };

/** The route label of a request no route matched: one value for every unknown path, never the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** `status_class` by the status's first digit (index 1 to 5). */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** Seconds; from a cached answer (a few ms) to the request timeout's order (60 s by default). */
const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type RequestLabels = 'method' | 'route' | 'status_class';

/** The services whose calls are measured, each call by operation and outcome (`peer_call_duration_seconds`). */
export type Peer = 'identity' | 'runtime' | 'payments';

/** Seconds; from a loopback answer (a ms) to the peers' time limits (10 s to 80 s with Stripe's retries). */
const PEER_CALL_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * This instance's Prometheus metrics, on a registry of its own (never prom-client's global one):
 * two apps in one process (the tests, a second instance) each count their own. Every label value
 * comes from a closed set: route patterns as declared (`/v1/admin/users/:id`), never a raw path
 * or id; rule names; levels; status classes.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requestDuration: Histogram<RequestLabels>;
  /** The histogram's child per method, route and status class: no label hashing per request. */
  readonly #requestSeries = new Map<string, Histogram.Internal<RequestLabels>>();
  readonly #refusals: Counter<'reason' | 'rule' | 'level'>;
  readonly #jobRuns: Histogram<'job' | 'outcome'>;
  readonly #peerCalls: Histogram<'peer' | 'operation' | 'outcome'>;
  /** Counters the areas declared, by name: declaring one again (a second dispatcher of a kernel) returns it. */
  readonly #areaCounters = new Map<string, Count<LabelValues>>();
  #inFlight = 0;

  constructor(
    sources: MetricSources,
    private readonly log: MetricsLog,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });

    this.#requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its answer sent, by method, matched route pattern and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });

    const requests = this;
    new Gauge({
      name: 'http_requests_in_flight',
      help: 'Requests this instance has received and not yet answered (or seen abandoned).',
      registers,
      collect() {
        this.set(requests.#inFlight);
      },
    });

    this.#refusals = new Counter({
      name: 'http_refusals_total',
      help:
        'Requests refused before their work: reason rate_limit (by rule), maintenance (by level) ' +
        'or overload (too many requests in flight, anonymous uploads, or no database session free).',
      labelNames: ['reason', 'rule', 'level'],
      registers,
    });
    // Every series exists from the start at 0, so an alert on its rate needs no absent() guard.
    for (const rule of Object.keys(RATE_LIMITS)) this.#refusals.inc({ reason: 'rate_limit', rule }, 0);
    for (const level of ['degraded', 'lockdown']) this.#refusals.inc({ reason: 'maintenance', level }, 0);
    this.#refusals.inc({ reason: 'overload' }, 0);

    new Gauge({
      name: 'platform_maintenance_level',
      help:
        'The maintenance level this instance enforces (0 off, 1 degraded, 2 lockdown), under the source ' +
        'that set it: manual (staff) or automatic (the incident rules); the other source reads 0.',
      labelNames: ['source'],
      registers,
      collect() {
        const { level, auto } = sources.maintenance();
        const value = PANIC_LEVELS.indexOf(level);
        this.set({ source: 'manual' }, auto ? 0 : value);
        this.set({ source: 'automatic' }, auto ? value : 0);
      },
    });

    this.#jobRuns = new Histogram({
      name: 'scheduled_job_run_duration_seconds',
      help:
        'Scheduled job runs made by this instance (scheduled or run by staff), by job key and outcome ' +
        '(ok, or error: the handler threw and its work was rolled back), with the time each took.',
      labelNames: ['job', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers,
    });

    this.#peerCalls = new Histogram({
      name: 'peer_call_duration_seconds',
      help:
        'Calls this instance made to another service, by peer (identity, runtime, payments), operation and ' +
        'outcome (ok; refused: it answered no, a 4xx; failed: it answered with a failure, a 5xx; unreachable: no ' +
        'answer), with the time each took. An HTTP peer is counted per attempt, the payment provider per call.',
      labelNames: ['peer', 'operation', 'outcome'],
      buckets: PEER_CALL_DURATION_BUCKETS,
      registers,
    });

    const poolGauge = (name: string, help: string, read: (usage: PoolUsage) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          // Pools are fixed for the life of the instance; reset anyway so a series never outlives its pool.
          this.reset();
          for (const usage of sources.databasePools()) this.set({ pool: usage.pool }, read(usage));
        },
      });
    poolGauge(
      'database_pool_connections_in_use',
      'PostgreSQL sessions lent to a query or transaction now, by pool (reads, writes, or all).',
      (usage) => usage.inUse,
    );
    poolGauge(
      'database_pool_connections_idle',
      'Open PostgreSQL sessions free in the pool now.',
      (usage) => usage.idle,
    );
    poolGauge(
      'database_pool_waiting_queries',
      'Queries waiting for a free PostgreSQL session of the pool now.',
      (usage) => usage.waiting,
    );
  }

  /**
   * A gauge an area reads at scrape time (the kernel imports no area, so an area registers what
   * only it knows, such as its open sockets). Its name says its unit; it has no labels.
   */
  readAtScrape(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * A counter an area increments (the kernel imports no area, so an area declares what only it
   * counts, such as its mail outcomes). Every label's values are declared here, so the series are
   * bounded and each exists from the start at 0 (an alert on its rate needs no `absent()`); a
   * value outside them does not type-check. Its name ends in `_total`.
   */
  counter<const Labels extends LabelValues>(name: string, help: string, labels: Labels): Count<Labels> {
    const declared = this.#areaCounters.get(name);
    if (declared !== undefined) return declared as Count<Labels>;
    const counter = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] });
    for (const series of everyCombination(labels)) counter.inc(series, 0);
    const count: Count<Labels> = (values, by = 1) => counter.inc(values as Record<string, string>, by);
    this.#areaCounters.set(name, count as Count<LabelValues>);
    return count;
  }

  /**
   * A gauge an area reads with a query at scrape time, by one label whose values are declared here:
   * each is present in every scrape that read it (0 when the query counted none), and a value the
   * query returns outside them is dropped. One query runs at a time (a scrape meanwhile waits for
   * the same one); one that fails or takes longer than SCRAPE_QUERY_TIMEOUT_MS leaves the gauge out
   * of that scrape, which still answers, and is logged once until the query reads again. The query
   * should be one cheap, bounded statement: it runs on every scrape.
   */
  queryAtScrape<const Value extends string>(
    name: string,
    help: string,
    label: string,
    values: readonly Value[],
    query: () => Promise<Partial<Record<Value, number>>>,
  ): void {
    const log = this.log;
    let running: Promise<Partial<Record<Value, number>>> | undefined;
    const read = () => {
      running ??= query().finally(() => {
        running = undefined;
      });
      return running;
    };
    let failing = false;
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        let counts: Partial<Record<Value, number>>;
        try {
          counts = await withTimeout(
            read(),
            SCRAPE_QUERY_TIMEOUT_MS,
            `${name}: no answer within ${SCRAPE_QUERY_TIMEOUT_MS} ms`,
          );
        } catch (error) {
          if (!failing) log.warn({ err: error, metric: name }, 'metric left out of scrapes: its query failed');
          failing = true;
          // After the wait, not before: a scrape answered meanwhile keeps the values it read.
          this.reset();
          return;
        }
        if (failing) log.info({ metric: name }, 'metric read again');
        failing = false;
        for (const value of values) this.set({ [label]: value }, counts[value] ?? 0);
      },
    });
  }

  /**
   * The door an adapter measures its calls through (src/lib/spans.ts: the same wrapper makes their
   * spans). Operation names come from each adapter's closed set; the series are made as calls happen.
   */
  peerCalls(peer: Peer): PeerCallMeter {
    const histogram = this.#peerCalls;
    const series = new Map<string, Histogram.Internal<'peer' | 'operation' | 'outcome'>>();
    return {
      called(operation: string, outcome: PeerCallOutcome, seconds: number) {
        const key = `${operation} ${outcome}`;
        let child = series.get(key);
        if (child === undefined) {
          child = histogram.labels(peer, operation, outcome);
          series.set(key, child);
        }
        child.observe(seconds);
      },
    };
  }

  jobRan(job: string, outcome: JobOutcome, seconds: number): void {
    this.#jobRuns.observe({ job, outcome }, seconds);
  }

  requestStarted(): void {
    this.#inFlight += 1;
  }

  requestEnded(): void {
    this.#inFlight -= 1;
  }

  /** `route` is the matched route pattern, undefined when no route matched. */
  requestAnswered(method: string, route: string | undefined, status: number, seconds: number): void {
    const routeLabel = route ?? UNMATCHED_ROUTE;
    const statusClass = STATUS_CLASSES[(status / 100) | 0] ?? 'other';
    const key = `${method} ${routeLabel} ${statusClass}`;
    let series = this.#requestSeries.get(key);
    if (series === undefined) {
      series = this.#requestDuration.labels(method, routeLabel, statusClass);
      this.#requestSeries.set(key, series);
    }
    series.observe(seconds);
  }

  refused(refusal: Refusal): void {
    this.#refusals.inc(refusal);
  }
}

/** Every combination of one value per label (one series each). */
function everyCombination(labels: LabelValues): Record<string, string>[] {
  let combinations: Record<string, string>[] = [{}];
  for (const [name, values] of Object.entries(labels))
    combinations = combinations.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  return combinations;
}

/** `work`, or a rejection after `ms` (the work itself goes on; its result is then dropped). */
function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
