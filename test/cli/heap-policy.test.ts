import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { applyHeapPolicy, HEAP_GROWING_PERCENT } from '../../src/cli/heap-policy.js';

describe('the serving heap policy', () => {
  it("leaves V8's growth to an operator who set it on node's command line, in either spelling", () => {
    expect(applyHeapPolicy(['--heap-growing-percent=0'])).toBe(false);
    expect(applyHeapPolicy(['--enable-source-maps', '--heap_growing_percent=80'])).toBe(false);
    expect(applyHeapPolicy(['--heap-growing-percent', '30'])).toBe(false);
  });

  it('takes effect in a running process: a churning heap stays smaller than without it', () => {
    // The same allocation pattern (20 MB kept and replaced, short-lived garbage between) in two
    // fresh processes, one with the policy applied once it runs: the heap V8 keeps is smaller.
    const churn = (policy: boolean) => {
      const script = `
        ${policy ? `require('node:v8').setFlagsFromString('--heap-growing-percent=${HEAP_GROWING_PERCENT}');` : ''}
        const kept = []; let peak = 0;
        for (let round = 0; round < 300; round++) {
          kept.push(Array.from({ length: 5000 }, (_, i) => ({ i, text: 'x' + i })));
          if (kept.length > 40) kept.shift();
          for (let n = 0; n < 2000; n++) ({ list: [n, { text: String(n) }] });
          peak = Math.max(peak, require('node:v8').getHeapStatistics().total_heap_size);
        }
        process.stdout.write(String(peak));`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      return Number(run.stdout);
    };
    const without = churn(false);
    const withPolicy = churn(true);
    expect(withPolicy).toBeGreaterThan(0);
    expect(withPolicy).toBeLessThan(without * 0.9);
  });
});
