import { Worker } from 'node:worker_threads';
import { onCleanup } from './cleanup.js';

/**
 * `--neighbour C`: a stand-in for the other tenants of a shared machine, burning C cores on
 * average in bursts. The soak's tail follows the hour: on a busy one, other work takes the cores
 * in bursts and the service's queues grow (bench/README.md, "Probes and tools"). A busy
 * hour cannot be booked, so two settings could only be compared on whatever hour each got. The
 * neighbour makes the busy hour repeatable: its bursts come from a fixed seed, so two runs with
 * the same C get the same bursts at the same seconds of their run.
 *
 * One thread per core of the machine, each alternating busy and idle stretches drawn from
 * exponential distributions (mean busy stretch `MEAN_BUSY_MS`), so bursts overlap at random, as
 * independent neighbours' work does: sometimes every thread spins at once.
 */
export interface NeighbourPlan {
  /** Cores burnt on average (0 < cores < threads). */
  cores: number;
  threads: number;
  meanBusyMs: number;
  meanIdleMs: number;
  seed: number;
}

const MEAN_BUSY_MS = 1_000;
const SEED = 20_261_126;

export function neighbourPlan(cores: number, threads: number): NeighbourPlan {
  if (!(cores > 0 && cores < threads))
    throw new Error(`--neighbour: between 0 and ${threads} cores (exclusive), got ${cores}`);
  const duty = cores / threads;
  return {
    cores,
    threads,
    meanBusyMs: MEAN_BUSY_MS,
    meanIdleMs: Math.round((MEAN_BUSY_MS * (1 - duty)) / duty),
    seed: SEED,
  };
}

/**
 * Each worker's loop: a seeded generator (mulberry32) draws its stretches; an idle stretch
 * sleeps in `Atomics.wait` on the stop flag, a busy one spins and looks at the flag as it goes.
 * Posts the milliseconds it spent busy when the flag is raised.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { meanBusyMs, meanIdleMs, seed, stop } = workerData;
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const draw = (mean) => -Math.log(1 - random()) * mean;
let busyMs = 0;
while (Atomics.load(stop, 0) === 0) {
  Atomics.wait(stop, 0, 0, draw(meanIdleMs));
  const from = Date.now();
  const until = from + draw(meanBusyMs);
  let spin = 0;
  while (Date.now() < until && Atomics.load(stop, 0) === 0) spin += 1;
  busyMs += Date.now() - from;
}
parentPort.postMessage(busyMs);
`;

export interface RunningNeighbour {
  /** Stops every thread; resolves with the cores they burnt on average since the start. */
  stop(): Promise<number>;
}

export function startCpuNeighbour(plan: NeighbourPlan): RunningNeighbour {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const startedAt = performance.now();
  const workers = Array.from(
    { length: plan.threads },
    (_, i) =>
      new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { meanBusyMs: plan.meanBusyMs, meanIdleMs: plan.meanIdleMs, seed: plan.seed + i, stop },
      }),
  );
  const busy = workers.map(
    (worker) =>
      new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }),
  );
  let stopped: Promise<number> | undefined;
  const running: RunningNeighbour = {
    stop() {
      stopped ??= (async () => {
        Atomics.store(stop, 0, 1);
        Atomics.notify(stop, 0);
        const busyMs = await Promise.all(busy);
        await Promise.all(workers.map((worker) => worker.terminate()));
        return busyMs.reduce((sum, ms) => sum + ms, 0) / (performance.now() - startedAt);
      })();
      return stopped;
    },
  };
  onCleanup('CPU neighbour', async () => {
    await running.stop();
  });
  return running;
}
