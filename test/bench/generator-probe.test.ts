import { describe, expect, it } from 'vitest';
import { startGeneratorProbe } from '../../bench/generator-probe.js';

/**
 * The soak prints the generator's own second beside the service's, to tell a slow generator
 * from a slow service (bench/generator-probe.ts): a held event loop must show, and each second
 * must start from nothing.
 */
describe('the generator probe', () => {
  it('shows how long the event loop was held, once', async () => {
    const probe = startGeneratorProbe();
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      probe.take();
      // Node's histogram starts counting at the first tick after a reset: hold the loop after it.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const busyUntil = performance.now() + 80;
      while (performance.now() < busyUntil) {
        // Holding the loop as a long GC or a descheduled thread would.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(probe.take().loopMaxMs).toBeGreaterThanOrEqual(70);

      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(probe.take().loopMaxMs).toBeLessThan(70);
    } finally {
      probe.stop();
    }
  });
});
