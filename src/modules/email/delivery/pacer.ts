import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Spaces send starts at least 1/rate seconds apart in this process (MAIL_RATE_PER_SECOND),
 * whichever worker asks: each caller reserves the next free slot and waits for it. Per
 * instance, by design: the rate protects the SMTP relay's per-connection limits, and an
 * operator running N instances sets the rate to its share.
 */
export class SendPacer {
  readonly #intervalMs: number;
  #nextSlot = 0;

  constructor(perSecond: number) {
    this.#intervalMs = 1000 / perSecond;
  }

  async wait(): Promise<void> {
    const now = performance.now();
    const slot = Math.max(now, this.#nextSlot);
    this.#nextSlot = slot + this.#intervalMs;
    if (slot > now) await sleep(slot - now);
  }
}
