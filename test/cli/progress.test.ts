import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/cli/progress.js';

/** Progress of long commands (audit export): a bar on a terminal, plain lines elsewhere, always on its own stream. */

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => void written.push(text) };
}

function clock() {
  let now = 1_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('Progress', () => {
  it('not a terminal: a plain line per interval, none in between, and a closing count', () => {
    const out = stream(false);
    const time = clock();
    const progress = new Progress(out, 'audit export', { intervalMs: 5_000, now: time.now });
    progress.add(1_000);
    time.advance(4_999);
    progress.add(1_000);
    expect(out.written).toEqual([]);
    time.advance(1);
    progress.add(500);
    time.advance(2_500);
    progress.done('entries');
    expect(out.written).toEqual(['audit export: 2500 so far\n', 'audit export: 2500 entries in 7.5 s\n']);
  });

  it('a terminal with a known total: a bar redrawn in place, erased before the closing line', () => {
    const out = stream(true);
    const time = clock();
    const progress = new Progress(out, 'export', { total: 200, intervalMs: 100, now: time.now });
    time.advance(100);
    progress.add(50);
    time.advance(100);
    progress.add(150);
    progress.done('rows');
    expect(out.written).toEqual([
      `\rexport [${'#'.repeat(8)}${'.'.repeat(22)}]  25% 50/200\x1b[K`,
      `\rexport [${'#'.repeat(30)}] 100% 200/200\x1b[K`,
      `\rexport [${'#'.repeat(30)}] 100% 200/200\x1b[K\r\x1b[K`,
      'export: 200 rows in 0.2 s\n',
    ]);
  });

  it('a terminal without a total: a count redrawn in place', () => {
    const out = stream(true);
    const time = clock();
    const progress = new Progress(out, 'export', { intervalMs: 100, now: time.now });
    time.advance(100);
    progress.add(7);
    expect(out.written).toEqual(['\rexport: 7\x1b[K']);
  });
});
