import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import type { UserCache } from '../../kernel/auth/user-cache.js';
import type { Writes } from '../../kernel/write.js';
import type { StorageAdapter } from '../../adapters/storage/index.js';
import { avatarUrl } from '../files/index.js';
import { liftSuppression, suppressAsUnsubscribed, suppressionReason } from '../email/index.js';
import { lockUserEmail, updateProfileColumns } from '../users/index.js';
import { unchangingAnswer } from '../../lib/response-serializer.js';
import { findProfile, PROFILE_ANSWER } from './queries.js';
import type { ProfileView, UpdateProfileInput } from './schemas.js';

type Db = Kysely<Tables>;
export type ProfileRow = NonNullable<Awaited<ReturnType<typeof findProfile>>>;
/** The one entry a user has in the profile cache. */
const PROFILE = 'profile';

/** A profile as the cache keeps it: the answer without its avatar URL, and the key to sign one from. */
interface CachedProfile {
  view: ProfileView;
  avatarKey: string | null;
}

function cachedProfile({ avatar_key: avatarKey, ...profile }: ProfileRow): CachedProfile {
  // Unchanging: every read of this entry answers with this very object, and its text is kept.
  return { view: unchangingAnswer({ ...profile, avatar_url: null }), avatarKey };
}

/**
 * The caller's own profile. The marketing preference is the suppression list itself (what
 * unsubscribe links write), so a link and this setting never disagree: opting out suppresses the
 * address, opting back in lifts only an unsubscribe, never a bounce or a complaint.
 */
export class ProfileService {
  /**
   * `rows` holds the profiles of recent readers: migration 0032 notifies every change to the user
   * row or the address's suppression, so a read never shows what a write replaced. The avatar URL
   * is signed on each read, never cached.
   */
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly storage: StorageAdapter,
    private readonly rows: UserCache<CachedProfile>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The kept answer at once (no promise) when the profile is cached and has no avatar to sign; else `get`. */
  cached(userId: string): ProfileView | undefined {
    const profile = this.rows.get(userId, PROFILE);
    return profile === undefined || profile.avatarKey !== null ? undefined : profile.view;
  }

  async get(userId: string): Promise<ProfileView> {
    const profile = await this.rows.through(userId, PROFILE, async () => {
      const row = await findProfile(this.db, userId);
      return row === undefined ? undefined : cachedProfile(row);
    });
    if (profile === undefined) throw notFound();
    return this.#answer(profile);
  }

  /**
   * Without an avatar the cached answer itself goes out (nothing changes an answer once made, and
   * a copy per read would be the largest cost of our own in `/v1/me`); with one, the URL is
   * signed for this answer.
   */
  #answer({ view, avatarKey }: CachedProfile): ProfileView | Promise<ProfileView> {
    if (avatarKey === null) return view;
    return avatarUrl(this.storage, avatarKey, this.clock()).then((url) => ({ ...view, avatar_url: url }));
  }

  /**
   * A change of the player's own columns alone is one statement whose RETURNING is the answer: no
   * transaction, no read after it. A marketing change also writes the suppression list, so it
   * runs in a transaction with the user row locked.
   */
  async update(userId: string, input: UpdateProfileInput): Promise<ProfileView> {
    const { marketing_opt_in: marketing, ...columns } = input;
    if (marketing === undefined) {
      const updated = await updateProfileColumns(this.db, userId, columns, this.clock(), PROFILE_ANSWER);
      if (updated === undefined) throw notFound();
      return this.#answer(cachedProfile(updated));
    }
    await this.write(async (w) => {
      const user = await lockUserEmail(w.trx, userId);
      if (user === undefined) throw notFound();
      await this.#setMarketing(w.trx, user.email, marketing);
      await updateProfileColumns(w.trx, userId, columns, this.clock(), PROFILE_ANSWER);
    });
    return this.get(userId);
  }

  async #setMarketing(trx: Db, email: string | null, wanted: boolean): Promise<void> {
    if (email === null) throw invalidState({ field: 'marketing_opt_in', reason: 'the account has no email address' });
    const address = email.toLowerCase();
    if (!wanted) {
      await suppressAsUnsubscribed(trx, address);
      return;
    }
    const suppressed = await suppressionReason(trx, address);
    if (suppressed === undefined) return;
    if (suppressed !== 'unsubscribed') {
      throw invalidState({
        field: 'marketing_opt_in',
        reason: 'mail to this address bounced or was reported; support can lift it',
        suppression_reason: suppressed,
      });
    }
    await liftSuppression(trx, address);
  }
}
