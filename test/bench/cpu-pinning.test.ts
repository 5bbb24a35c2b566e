import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { pinningPlan, pinProcess } from '../../bench/cpu-pinning.js';

/**
 * The soak's `--pin` (bench/cpu-pinning.ts) gives the service a core of its own: a thread left
 * on the shared cores, or a plan that hands the service's core to the others, would measure the
 * machine it claims not to.
 */

describe('the pinning plan', () => {
  it('gives the service the last core and everything else the rest', () => {
    expect(pinningPlan(2)).toEqual({ serviceCores: '1', otherCores: '0' });
    expect(pinningPlan(8)).toEqual({ serviceCores: '7', otherCores: '0-6' });
  });

  it('refuses a machine with one core (nothing to separate)', () => {
    expect(() => pinningPlan(1)).toThrow(/2 cores or more/);
  });
});

const allowedCores = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).map(
    (thread) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/task/${thread}/status`, 'utf8'))?.[1],
  );

describe.runIf(cpus().length >= 2)('pinning a process', () => {
  it('moves every thread of it, and the threads it starts later', async () => {
    // A Node.js process has its V8 and libuv threads already; it starts a worker thread when told to.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
      process.stdin.once('data', () => { new (require('node:worker_threads').Worker)('setTimeout(() => {}, 60000)', { eval: true }); console.log('started'); });
      setTimeout(() => {}, 60000);
      console.log('ready');`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      // V8's platform threads exist before any script runs: once it speaks, they are there.
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      const threadsBefore = allowedCores(child.pid!).length;
      expect(threadsBefore).toBeGreaterThan(1);
      pinProcess(child.pid!, '0');
      expect(new Set(allowedCores(child.pid!))).toEqual(new Set(['0']));

      child.stdin!.write('go\n');
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      const after = allowedCores(child.pid!);
      expect(after.length).toBeGreaterThan(threadsBefore);
      expect(new Set(after)).toEqual(new Set(['0']));
    } finally {
      child.kill();
    }
  });
});
