import { formatTable } from './report.js';
import type { MixKind } from './soak-mix.js';
import { rssStats, summarize, type RssStats, type StretchSummary, type Tally } from './soak-stats.js';

/** The bounds for the soak ("Done when"), besides the bench's p99 targets per request. */
export const MAX_ERROR_RATE = 0.001;
export const MAX_RSS_DRIFT = 0.1;

/** CPU used during a stretch, in cores (milliseconds of CPU per millisecond of wall clock). */
export interface CpuCores {
  service: number;
  /** PostgreSQL backends of the soak's database; null on the embedded database. */
  database: number | null;
  /** This process, the load generator. */
  loadGenerator: number;
}

/** CPU milliseconds used over `seconds` of wall clock, in cores. */
export function coresOf(
  used: { serviceMs: number; databaseMs: number | null; loadGeneratorMs: number },
  seconds: number,
): CpuCores {
  const ms = seconds * 1_000;
  return {
    service: used.serviceMs / ms,
    database: used.databaseMs === null ? null : used.databaseMs / ms,
    loadGenerator: used.loadGeneratorMs / ms,
  };
}

/** A stretch of the soak as recorded: the warm-up or one minute. */
export interface PhaseRecord {
  label: string;
  /** Seconds since the fixed-rate load began. */
  fromSecond: number;
  toSecond: number;
  tally: Tally;
  rssMb: number[];
  cpu: CpuCores | null;
  /** The machine's 1/5/15-minute load average when the stretch ended. */
  loadAverage: number[];
}

export interface PhaseSummary extends StretchSummary {
  label: string;
  seconds: number;
  requestsPerSecond: number;
  rss: RssStats | null;
  cpu: CpuCores | null;
  loadAverage: number[];
}

export function summarizePhase(kinds: MixKind[], phase: PhaseRecord): PhaseSummary {
  const seconds = phase.toSecond - phase.fromSecond;
  const summary = summarize(kinds, [phase.tally]);
  return {
    label: phase.label,
    seconds,
    requestsPerSecond: summary.requests / seconds,
    ...summary,
    rss: rssStats(phase.rssMb),
    cpu: phase.cpu,
    loadAverage: phase.loadAverage,
  };
}

export interface Check {
  check: string;
  value: string;
  bound: string;
  /** null: not judged (RSS drift needs two minutes). */
  met: boolean | null;
}

export interface RssDrift {
  firstMinuteMeanMb: number;
  lastMinuteMeanMb: number;
  /** (last − first) / first of the means; growth is positive. The verdict judges this. */
  drift: number;
  firstMinuteFloorMb: number;
  lastMinuteFloorMb: number;
  /** (last − first) / first of each minute's lowest sample; shown, not judged. */
  floorDrift: number;
}

/**
 * RSS drift: the mean of the samples taken during the last measured minute against the mean of
 * those of the first (the first full minute after the warm-up). null without two minutes of samples.
 *
 * The resident size swings by 100 MB and more with the old generation's collections, so two
 * minutes' means differ by where each fell in the swing as much as by any growth (−34.5 to
 * +58.4 % over the kept soaks). Each minute's lowest sample, taken just after a collection, is
 * what a leak raises; it is reported beside the means so a reader can tell the two apart
 * (bench/README.md, "Soak").
 */
export function rssDrift(minutes: PhaseSummary[]): RssDrift | null {
  const first = minutes[0]?.rss;
  const last = minutes[minutes.length - 1]?.rss;
  if (minutes.length < 2 || first == null || last == null) return null;
  return {
    firstMinuteMeanMb: first.meanMb,
    lastMinuteMeanMb: last.meanMb,
    drift: growth(first.meanMb, last.meanMb),
    firstMinuteFloorMb: first.minMb,
    lastMinuteFloorMb: last.minMb,
    floorDrift: growth(first.minMb, last.minMb),
  };
}

const growth = (from: number, to: number) => (to - from) / from;

/**
 * The verdict over the measured minutes (the warm-up excluded): each request with a bench p99
 * bound within it over the whole soak, errors under 0.1 % of all requests, RSS growing less than 10 %.
 */
export function verdict(soak: StretchSummary, drift: RssDrift | null): Check[] {
  const checks: Check[] = [];
  for (const kind of soak.kinds) {
    if (kind.maxP99Ms === undefined) continue;
    const p99 = kind.latency?.p99Ms ?? Infinity;
    checks.push({
      check: `p99 ${kind.name}`,
      value: milliseconds(p99),
      bound: `≤ ${kind.maxP99Ms} ms`,
      met: p99 <= kind.maxP99Ms,
    });
  }
  checks.push({
    check: 'error rate',
    value: `${percent(soak.errorRate, 3)} (${soak.errors} of ${soak.requests})`,
    bound: `< ${percent(MAX_ERROR_RATE, 1)}`,
    met: soak.requests > 0 && soak.errorRate < MAX_ERROR_RATE,
  });
  checks.push(
    drift === null
      ? {
          check: 'RSS drift (last minute vs first)',
          value: 'needs 2 minutes or more',
          bound: `< ${percent(MAX_RSS_DRIFT, 0)}`,
          met: null,
        }
      : {
          check: 'RSS drift (last minute vs first)',
          value:
            `${signedPercent(drift.drift)} (${drift.firstMinuteMeanMb.toFixed(0)} → ` +
            `${drift.lastMinuteMeanMb.toFixed(0)} MB; ` +
            (`floor ${signedPercent(drift.floorDrift)}, ${drift.firstMinuteFloorMb.toFixed(0)} → ` +
              `${drift.lastMinuteFloorMb.toFixed(0)} MB)`),
          bound: `< ${percent(MAX_RSS_DRIFT, 0)}`,
          met: drift.drift < MAX_RSS_DRIFT,
        },
  );
  return checks;
}

const percent = (ratio: number, digits: number) => `${(ratio * 100).toFixed(digits)} %`;
const signedPercent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${percent(ratio, 1)}`;

/** Latencies are measured in fractions of a millisecond (unlike autocannon's whole ones). */
export function milliseconds(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '';
  if (value >= 1_000) return `${(value / 1_000).toFixed(2)} s`;
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

const cores = (value: number | null | undefined) => (value === null || value === undefined ? '' : value.toFixed(2));

function answerMix(answers: Record<string, number>): string {
  return Object.entries(answers)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
}

/** The closed-loop run that sets the rate: per kind of request, and the whole. */
export function maxRateTable(summary: StretchSummary, seconds: number, cpu: CpuCores | null): string {
  const header = ['request', 'requests', 'req/s', 'errors', 'p50', 'p99', 'answers'];
  const line = (
    name: string,
    requests: number,
    errors: number,
    p50?: number,
    p99?: number,
    answers: Record<string, number> = {},
  ) => [
    name,
    String(requests),
    (requests / seconds).toFixed(0),
    String(errors),
    milliseconds(p50),
    milliseconds(p99),
    answerMix(answers),
  ];
  const lines = summary.kinds.map((kind) =>
    line(kind.name, kind.requests, kind.errors, kind.latency?.p50Ms, kind.latency?.p99Ms, kind.answers),
  );
  lines.push(line('all', summary.requests, summary.errors, summary.latency?.p50Ms, summary.latency?.p99Ms));
  const cpuLine =
    cpu === null
      ? ''
      : `\nCPU: service ${cores(cpu.service)} + database ${cores(cpu.database) || '–'} cores, generator ` +
        `${cores(cpu.loadGenerator)}`;
  return formatTable(header, lines, (column) => column > 0 && column < 6) + cpuLine;
}

/** One line per stretch: the warm-up, each minute, and the whole soak. */
export function minutesTable(phases: PhaseSummary[], kinds: MixKind[]): string {
  const bounded = kinds.map((kind, i) => ({ kind, i })).filter(({ kind }) => kind.maxP99Ms !== undefined);
  const header = [
    'stretch',
    'requests',
    'req/s',
    'errors',
    'p50',
    'p99',
    ...bounded.map(({ kind }) => `p99 ${shortName(kind.name)}`),
    'lag p99',
    'RSS mean',
    'RSS max',
    'svc',
    'db',
    'gen',
    'load avg',
  ];
  const lines = phases.map((phase) => [
    phase.label,
    String(phase.requests),
    phase.requestsPerSecond.toFixed(0),
    String(phase.errors),
    milliseconds(phase.latency?.p50Ms),
    milliseconds(phase.latency?.p99Ms),
    ...bounded.map(({ i }) => milliseconds(phase.kinds[i]!.latency?.p99Ms)),
    milliseconds(phase.dispatchLag?.p99Ms),
    phase.rss === null ? '' : `${phase.rss.meanMb.toFixed(0)} MB`,
    phase.rss === null ? '' : `${phase.rss.maxMb.toFixed(0)} MB`,
    cores(phase.cpu?.service),
    cores(phase.cpu?.database),
    cores(phase.cpu?.loadGenerator),
    phase.loadAverage.length === 0 ? '' : phase.loadAverage[0]!.toFixed(1),
  ]);
  return formatTable(header, lines, (column) => column > 0);
}

/** Per kind of request over the measured minutes, with the worst minute's p99. */
export function kindsTable(soak: StretchSummary, minutes: PhaseSummary[]): string {
  const header = [
    'request',
    'share',
    'requests',
    'errors',
    'p50',
    'p99',
    'max',
    'worst minute p99',
    'bound',
    'met?',
    'answers',
  ];
  const lines = soak.kinds.map((kind, i) => {
    const worst = Math.max(...minutes.map((minute) => minute.kinds[i]!.latency?.p99Ms ?? 0));
    const p99 = kind.latency?.p99Ms;
    return [
      kind.name,
      percent(kind.requests / Math.max(1, soak.requests), 1),
      String(kind.requests),
      String(kind.errors),
      milliseconds(kind.latency?.p50Ms),
      milliseconds(p99),
      milliseconds(kind.latency?.maxMs),
      milliseconds(worst),
      kind.maxP99Ms === undefined ? '' : `p99 ≤ ${kind.maxP99Ms} ms`,
      kind.maxP99Ms === undefined || p99 === undefined ? '-' : p99 <= kind.maxP99Ms ? 'yes' : 'NO',
      answerMix(kind.answers),
    ];
  });
  return formatTable(header, lines, (column) => column > 0 && column < 8);
}

export function verdictTable(checks: Check[]): string {
  return formatTable(
    ['check', 'value', 'bound', 'met?'],
    checks.map((c) => [c.check, c.value, c.bound, c.met === null ? '-' : c.met ? 'yes' : 'NO']),
    () => false,
  );
}

/** `GET /v1/admin/users (page 1, with total)` → `admin/users`, for column titles. */
function shortName(name: string): string {
  const path = name.split(' ')[1] ?? name;
  return path
    .replace(/^\/v1\//, '')
    .replace(/\/\{id\}$/, '')
    .replace(/^admin\/catalog\//, '')
    .replace(/\?.*$/, '');
}
