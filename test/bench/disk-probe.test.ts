import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDiskProbe } from '../../bench/disk-probe.js';

describe("the soak's disk probe", () => {
  it('times real syncs of a file in the directory it is given, and leaves nothing behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pa-disk-probe-'));
    const probe = await startDiskProbe(dir);
    try {
      expect(readdirSync(dir)).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const longest = probe.take();
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThan(300);
    } finally {
      await probe.stop();
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
