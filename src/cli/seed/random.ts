/**
 * A small pseudo-random generator with a fixed seed (mulberry32): the demo data set varies like
 * real data does, and every run of the seed draws the same values, so a second run asks for
 * exactly what the first one made.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const chosen: T[] = [];
    while (chosen.length < count && pool.length > 0)
      chosen.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return chosen;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

const DAY_MS = 86_400_000;

/** A moment `days` days before `now`, at a drawn time of day. */
export function daysAgo(random: SeededRandom, now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS - random.int(0, DAY_MS - 1));
}
