import type { Database } from '../../db/database.js';

/**
 * Migration 0032's triggers notify it with a user's id, or `*` (every user), on every change to
 * the user's row, grants, sessions and suppression, and to any role; migration 0043's with
 * `profile:` and the id when only the player's own profile columns changed.
 */
export const USER_CHANGE_CHANNEL = 'platform_api_user_changes';
const EVERYONE = '*';
const PROFILE_ONLY = 'profile:';

/**
 * What a cache's rows are read from. `account` rows (the principal) read none of the columns a
 * profile-only notice stands for (migration 0043 names them), so they keep their entries through
 * a profile edit; `profile` rows are dropped by both kinds.
 */
export type CachedRows = 'account' | 'profile';

/**
 * The longest an entry is trusted without a notice. Notices keep entries exact; this only bounds
 * the harm of one never delivered (a listener reconnect already forgets everything). Two
 * minutes, not less: an active user's principal is read again anyway when their sighting moves
 * (every 60 to 90 s, with its notice), so a shorter cap only adds reads. At 30 s (until the tenth
 * session) a player seen every few seconds had it read two or three times per sighting.
 */
const MAX_AGE_MS = 120_000;
/**
 * Each entry's cap is drawn from the last third of that (80–120 s). With one fixed age, entries
 * stored together expire together: a stall that makes a thousand players' reads wait stores
 * their rows in the same second, so they all miss at once again one cap later, an echo of the
 * stall. Drawn over 40 s, they come back spread out.
 */
const MAX_AGE_SPREAD = 1 / 3;

/** An entry's age cap, from a draw in [0, 1). */
export function entryAgeCapMs(draw: number): number {
  return MAX_AGE_MS * (1 - MAX_AGE_SPREAD * draw);
}
/** Entries kept per cache and instance; past it the oldest users are forgotten first. */
const MAX_ENTRIES = 50_000;
/** Users whose latest notice is remembered (for reads under way); past it, a notice counts for everyone. */
const MAX_NOTICED = 10_000;

interface Forgetter {
  forget(who: string): void;
}

/**
 * One subscription per instance to the user change notices, handed to every `UserCache`. Notices
 * arrive at the writer's COMMIT on the instance that wrote (its next request already reads the
 * change), a moment later on the others.
 */
export class UserChanges {
  readonly #caches = new Map<Forgetter, CachedRows>();
  readonly #listeners = new Set<(who: string) => void>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  async start(): Promise<void> {
    this.#unlisten = await this.database.listen(
      USER_CHANGE_CHANNEL,
      {
        onMessage: (who) => this.#forget(who),
        // Notices may have been missed while the listener was away.
        onResync: () => this.#forget(EVERYONE),
      },
      { atOwnCommit: true },
    );
  }

  async stop(): Promise<void> {
    await this.#unlisten?.();
    this.#unlisten = undefined;
    this.#forget(EVERYONE);
  }

  /**
   * Hears every account notice (a user id, or `*` for everyone; profile-only notices are not
   * passed on): for state that is not a cache, such as the channels an open socket may stay in.
   */
  onAccountChange(listener: (who: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A cache of rows about one user each, kept exact by these notices. */
  cache<Row>(rows: CachedRows): UserCache<Row> {
    const cache = new UserCache<Row>(this.clock, this.random);
    this.#caches.set(cache, rows);
    return cache;
  }

  #forget(notice: string): void {
    const profileOnly = notice.startsWith(PROFILE_ONLY);
    const who = profileOnly ? notice.slice(PROFILE_ONLY.length) : notice;
    for (const [cache, rows] of this.#caches) {
      if (!profileOnly || rows === 'profile') cache.forget(who);
    }
    if (!profileOnly) for (const listener of this.#listeners) listener(who);
  }
}

interface Entry<Row> {
  row: Row;
  /** Wall-clock ms after which the entry is not used: its age cap, or when it stops being true (a grant's expiry). */
  usableUntil: number;
}

/**
 * Rows read about one user (under a key: the principal keeps one per login session), per
 * instance. A user's entries are dropped when a notice names them. A read that was under way
 * when a notice for its user arrived is not stored (`generation`): a row read before a ban
 * committed cannot be cached after the ban's notice. Notices for other users do not spoil it,
 * so a crowd signing in (two notices each) does not keep everyone else's reads from caching.
 */
export class UserCache<Row> {
  readonly #users = new Map<string, Map<string, Entry<Row>>>();
  #entries = 0;
  /** Counts notices; each user's latest, and the latest naming everyone. */
  #generation = 0;
  readonly #noticedAt = new Map<string, number>();
  #everyoneNoticedAt = 0;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** Taken before a read and handed to `set`: it grows with every notice. */
  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries;
  }

  get(userId: string, key: string): Row | undefined {
    const entries = this.#users.get(userId);
    const entry = entries?.get(key);
    if (entry === undefined) return undefined;
    if (this.clock() < entry.usableUntil) return entry.row;
    entries!.delete(key);
    this.#entries -= 1;
    return undefined;
  }

  /** Stores a read unless a notice arrived since `generation` was taken. `until`: the row stops being true then. */
  set(userId: string, key: string, row: Row, generation: number, until: Date | null = null): void {
    if (this.#everyoneNoticedAt > generation || (this.#noticedAt.get(userId) ?? 0) > generation) return;
    const cap = this.clock() + entryAgeCapMs(this.random());
    const usableUntil = until === null ? cap : Math.min(cap, until.getTime());
    let entries = this.#users.get(userId);
    if (entries === undefined) {
      entries = new Map();
      this.#users.set(userId, entries);
    }
    if (!entries.has(key)) this.#entries += 1;
    entries.set(key, { row, usableUntil });
    this.#evictPastCap();
  }

  /** Reads through the cache: `read` runs on a miss, and its row is kept unless a notice overtook it. */
  async through(
    userId: string,
    key: string,
    read: () => Promise<Row | undefined>,
    until?: (row: Row) => Date | null,
  ): Promise<Row | undefined> {
    const cached = this.get(userId, key);
    if (cached !== undefined) return cached;
    const generation = this.#generation;
    const row = await read();
    if (row !== undefined) this.set(userId, key, row, generation, until?.(row) ?? null);
    return row;
  }

  /** A user id, or `*` for everyone. */
  forget(who: string): void {
    this.#generation += 1;
    if (who === EVERYONE || this.#noticedAt.size >= MAX_NOTICED) {
      // Past the cap, forgetting which users were named is safe only as a notice for everyone.
      this.#noticedAt.clear();
      this.#everyoneNoticedAt = this.#generation;
    } else {
      this.#noticedAt.set(who, this.#generation);
    }
    if (who === EVERYONE) {
      this.#users.clear();
      this.#entries = 0;
      return;
    }
    const entries = this.#users.get(who);
    if (entries === undefined) return;
    this.#entries -= entries.size;
    this.#users.delete(who);
  }

  #evictPastCap(): void {
    for (const [userId, entries] of this.#users) {
      if (this.#entries <= MAX_ENTRIES) return;
      this.#entries -= entries.size;
      this.#users.delete(userId);
    }
  }
}
