import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkTiming } from './bulk-operations.js';
import type { CpuPerRequest, Measured } from './measure.js';
import type { ScenarioFloor } from './scenarios.js';

export interface ScenarioOutcome extends Measured {
  name: string;
  expectedStatus: number;
  floor: ScenarioFloor;
  minRatio: number;
  /** Why the answers were not what the scenario measures; null when every answer had the expected status. */
  problem: string | null;
}

export interface CpuSplit {
  service: number;
  database: number | null;
}

export interface BulkOutcome {
  timing: BulkTiming;
  peakRssMb: number;
  /** CPU per repetition, split as for scenarios. */
  cpuMsPerRun: CpuSplit;
}

export interface StartupOutcome {
  name: string;
  ms: number;
  targetMs: number;
}

/** One line of the printed table and of the JSON `rows`. */
export interface Row {
  scenario: string;
  requestsPerSecond: number | null;
  /** Load: latency percentiles. Bulk operations: the median and the slowest repetition. Startup: the one time. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Which floor `ratio` is to: `Fastify` or `same-work`. */
  floor: string;
  /** Requests per second over the mean of the scenario's floor's two runs. */
  ratio: number | null;
  /** Requests per second over the mean of bare node:http's two runs. */
  nodeHttpRatio: number | null;
  peakRssMb: number | null;
  /** CPU per request (per run for bulk operations): service process + database backends. */
  cpuMs: CpuSplit | null;
  /** The load generator's CPU while measuring, in cores. */
  loadGeneratorCores: number | null;
  target: string;
  met: 'yes' | 'NO' | 'FAILED' | '-';
  statuses: string;
}

/** A row that is not a load run: the fields given, every other figure empty. */
export function judgedRow(fields: Pick<Row, 'scenario' | 'target' | 'met' | 'statuses'> & Partial<Row>): Row {
  return {
    requestsPerSecond: null,
    p50Ms: null,
    p99Ms: null,
    floor: '',
    ratio: null,
    nodeHttpRatio: null,
    peakRssMb: null,
    cpuMs: null,
    loadGeneratorCores: null,
    ...fields,
  };
}

/** Issue 31: peak RSS on PostgreSQL. */
export const PEAK_RSS_TARGET_MB = 250;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

export function statusMix(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
}

const cpuSplit = (cpu: CpuPerRequest): CpuSplit => ({ service: cpu.service, database: cpu.database });

/** A floor's run; `FAILED` when a single answer had another status than the scenario's. */
export function floorRow({ result, cpu }: Measured, label: string, expectedStatus = 200): Row {
  const wrong = Object.keys(result.statuses).some((code) => code !== String(expectedStatus));
  return {
    scenario: label,
    requestsPerSecond: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    floor: '',
    ratio: null,
    nodeHttpRatio: null,
    peakRssMb: null,
    cpuMs: cpuSplit(cpu),
    loadGeneratorCores: cpu.loadGeneratorCores,
    target: '',
    met: wrong || result.total === 0 ? 'FAILED' : '-',
    statuses: statusMix(result.statuses),
  };
}

/**
 * `floorRps`: the mean rate of the scenario's floor, null when this run has none (the same-work
 * floors need PostgreSQL); the target is judged only against it.
 */
export function scenarioRow(outcome: ScenarioOutcome, floorRps: number | null, nodeHttpRps: number): Row {
  const ratio = floorRps === null ? null : outcome.result.requestsPerSecond / floorRps;
  let met: Row['met'] = '-';
  if (outcome.problem !== null) met = 'FAILED';
  else if (ratio !== null) met = ratio >= outcome.minRatio ? 'yes' : 'NO';
  return {
    scenario: outcome.name,
    requestsPerSecond: outcome.result.requestsPerSecond,
    p50Ms: outcome.result.p50Ms,
    p99Ms: outcome.result.p99Ms,
    floor: outcome.floor === 'fastify' ? 'Fastify' : 'same-work',
    ratio,
    nodeHttpRatio: outcome.result.requestsPerSecond / nodeHttpRps,
    peakRssMb: outcome.peakRssMb,
    cpuMs: cpuSplit(outcome.cpu),
    loadGeneratorCores: outcome.cpu.loadGeneratorCores,
    target: `≥ ${outcome.minRatio.toFixed(2)}`,
    met,
    statuses: statusMix(outcome.result.statuses),
  };
}

export function bulkRow({ timing, peakRssMb, cpuMsPerRun }: BulkOutcome): Row {
  const slowest = timing.seconds.length === 0 ? null : Math.max(...timing.seconds) * 1_000;
  const typical = timing.seconds.length === 0 ? null : median(timing.seconds) * 1_000;
  return judgedRow({
    scenario: timing.name,
    p50Ms: typical,
    p99Ms: slowest,
    peakRssMb,
    cpuMs: cpuMsPerRun,
    target: `≤ ${timing.targetSeconds} s`,
    met:
      timing.problem !== null ? 'FAILED' : typical !== null && typical <= timing.targetSeconds * 1_000 ? 'yes' : 'NO',
    statuses: timing.problem ?? `200×${timing.seconds.length}`,
  });
}

export function startupRow(outcome: StartupOutcome): Row {
  return judgedRow({
    scenario: outcome.name,
    p50Ms: outcome.ms,
    target: `≤ ${outcome.targetMs / 1_000} s`,
    met: outcome.ms <= outcome.targetMs ? 'yes' : 'NO',
    statuses: '',
  });
}

export function peakRssRow(peakRssMb: number): Row {
  return judgedRow({
    scenario: 'peak RSS over the whole run',
    peakRssMb,
    target: `≤ ${PEAK_RSS_TARGET_MB} MB`,
    met: peakRssMb <= PEAK_RSS_TARGET_MB ? 'yes' : 'NO',
    statuses: '',
  });
}

function cell(value: number | null, digits: number, suffix = ''): string {
  return value === null || Number.isNaN(value) ? '' : `${value.toFixed(digits)}${suffix}`;
}

/** autocannon measures latency in whole milliseconds, so its 0 means under one; wrk in microseconds. */
function milliseconds(value: number | null): string {
  if (value === null) return '';
  if (value >= 1_000) return `${(value / 1_000).toFixed(2)} s`;
  if (value === 0) return '<1 ms';
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

/**
 * `service+database` CPU; under 10 ms with two decimals (three under 0.1 ms: the cheap routes differ
 * from their floor in the third), else whole milliseconds or seconds.
 */
function cpuCell(split: CpuSplit | null): string {
  if (split === null) return '';
  const ms = (value: number) =>
    value >= 1_000
      ? `${(value / 1_000).toFixed(1)} s`
      : value >= 10
        ? `${Math.round(value)}`
        : value.toFixed(value < 0.1 ? 3 : 2);
  return split.database === null ? ms(split.service) : `${ms(split.service)}+${ms(split.database)}`;
}

export function printTable(rows: Row[], write: (text: string) => void): void {
  const header = [
    'scenario',
    'req/s',
    'p50',
    'p99',
    'floor',
    'ratio',
    '/node:http',
    'peak RSS',
    'CPU ms svc+db',
    'gen',
    'target',
    'met?',
    'statuses',
  ];
  const lines = rows.map((row) => [
    row.scenario,
    cell(row.requestsPerSecond, 0),
    milliseconds(row.p50Ms),
    milliseconds(row.p99Ms),
    row.floor,
    cell(row.ratio, 2),
    cell(row.nodeHttpRatio, 2),
    cell(row.peakRssMb, 0, ' MB'),
    cpuCell(row.cpuMs),
    cell(row.loadGeneratorCores, 2),
    row.target,
    row.met,
    row.statuses,
  ]);
  write(formatTable(header, lines, (column) => column > 0 && column < 11 && column !== 4));
}

/** A plain-text table: columns padded to their widest cell, numbers (`rightAligned`) to the right. */
export function formatTable(header: string[], lines: string[][], rightAligned: (column: number) => boolean): string {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (line: string[]) =>
    line
      .map((text, column) => (rightAligned(column) ? text.padStart(widths[column]!) : text.padEnd(widths[column]!)))
      .join(' | ')
      .trimEnd();
  return [format(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...lines.map(format)].join('\n');
}

/**
 * `bench/results/<prefix><timestamp>-<db>.json`; quick runs go to `bench/results/quick/`. The folder
 * is ignored by git: bench/README.md's tables are the record. The soak names its files `soak-…`.
 */
export function writeResults(report: object, database: string, quick: boolean, when: Date, prefix = ''): string {
  const dir = join(import.meta.dirname, 'results', ...(quick ? ['quick'] : []));
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    `${prefix}${when
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z')}-${database}.json`,
  );
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
