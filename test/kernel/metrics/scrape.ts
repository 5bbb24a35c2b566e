import { connect } from 'node:net';
import { expect } from 'vitest';

/** One sample line of the Prometheus text format: `name{label="value",…} 12.5`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  status: number;
  contentType: string | null;
  /** `# TYPE` lines: metric name to its type. */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4): every line a comment, a TYPE/HELP line or a sample, or the test fails. */
export function parseExposition(text: string): Pick<Scrape, 'types' | 'samples'> {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else expect(line).toMatch(/^# HELP \S+ .+$/);
      continue;
    }
    const match = SAMPLE.exec(line);
    expect(match, `not a sample line: ${line}`).not.toBeNull();
    const [, name, labelText = '', raw] = match!;
    const labels: Record<string, string> = {};
    for (const [, key, value] of labelText.matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    // Go's ParseFloat, which Prometheus reads values with, takes NaN in any case (prom-client writes `Nan`).
    expect(raw, `not a value: ${line}`).toMatch(/^(?:[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|Inf)|nan)$/i);
    const value = raw === '+Inf' ? Number.POSITIVE_INFINITY : raw === '-Inf' ? Number.NEGATIVE_INFINITY : Number(raw);
    samples.push({ name: name!, labels, value });
  }
  return { types, samples };
}

/** GET /metrics on the metrics listener, parsed. */
export async function scrape(port: number): Promise<Scrape> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), ...parseExposition(text) };
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(scraped: Pick<Scrape, 'samples'>, name: string, labels: Record<string, string> = {}) {
  return scraped.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The value of the one sample named `name` with exactly these labels (undefined: none). */
export function sampleValue(
  scraped: Pick<Scrape, 'samples'>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.keys(labels).length;
  const found = samplesOf(scraped, name, labels).filter((sample) => Object.keys(sample.labels).length === wanted);
  expect(found.length, `${name}${JSON.stringify(labels)} appears ${found.length} times`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

/** The error code of a new TCP connection to the port on loopback (undefined: it was accepted). */
export function connectionError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}
