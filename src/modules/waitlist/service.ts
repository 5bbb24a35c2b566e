import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { paged } from '../../kernel/pagination.js';
import { insertSignup, listSignups } from './queries.js';
import type { JoinWaitlistInput, ListWaitlistQuery } from './schemas.js';

/** Longest client address kept (an IPv6 address with a zone fits easily). */
const MAX_IP_LENGTH = 100;

/**
 * The waitlist: addresses of people who want to hear when the platform opens, for marketing to
 * import into an audience. Signing up is idempotent and says nothing back: a known address and a
 * new one get the same answer, so the form cannot be used to test who signed up.
 */
export class WaitlistService {
  constructor(private readonly db: Kysely<Tables>) {}

  async join(input: JoinWaitlistInput, ip: string | null): Promise<void> {
    await insertSignup(this.db, {
      email: input.email.toLowerCase(),
      source: input.source ?? null,
      referrer: input.referrer ?? null,
      ip: ip === null ? null : ip.slice(0, MAX_IP_LENGTH),
    });
  }

  async list(query: ListWaitlistQuery) {
    const { rows, total } = await listSignups(this.db, query);
    return paged(rows, query, total);
  }
}
