import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** How often a sync is started (while none is under way). */
const SYNC_EVERY_MS = 50;
const BLOCK = Buffer.alloc(512, 1);

export interface DiskProbe {
  /** The longest write-and-fdatasync of the second: finished in it, or still under way at its end. */
  take(): number;
  stop(): Promise<void>;
}

/**
 * A commit waits for its WAL to reach the disk. On a shared virtual disk a sync can take a second
 * now and then, and every commit waits with it, along with the rows it locked and the pooled
 * connection it holds. This writes and syncs a small file in `dir` (on the database's disk) every
 * 50 ms on libuv's thread pool, off the event loop, so a slow second of the soak can be laid
 * beside the disk's.
 */
export async function startDiskProbe(dir: string): Promise<DiskProbe> {
  const file = join(dir, `disk-probe-${process.pid}.bin`);
  const handle = await open(file, 'w');
  let stopped = false;
  let longestMs = 0;
  let underWaySince: number | null = null;
  const loop = (async () => {
    while (!stopped) {
      const began = performance.now();
      underWaySince = began;
      await handle.write(BLOCK, 0, BLOCK.length, 0);
      await handle.datasync();
      longestMs = Math.max(longestMs, performance.now() - began);
      underWaySince = null;
      await new Promise((resolve) => setTimeout(resolve, SYNC_EVERY_MS));
    }
  })().catch((error: unknown) => {
    // A disk that refuses the probe's writes (full, read-only) ends the probe, not the soak.
    process.stderr.write(`disk probe stopped: ${error instanceof Error ? error.message : String(error)}\n`);
    underWaySince = null;
  });
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    take() {
      const stillUnderWay = underWaySince === null ? 0 : performance.now() - underWaySince;
      const second = round(Math.max(longestMs, stillUnderWay));
      longestMs = 0;
      return second;
    },
    async stop() {
      stopped = true;
      await loop;
      await handle.close();
      await rm(file, { force: true });
    },
  };
}
