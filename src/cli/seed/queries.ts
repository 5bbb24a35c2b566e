import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { GameSessionsTable } from '../../modules/game-sessions/tables.js';
import { writeUserFixtures } from '../../modules/users/index.js';
import type { Insertable } from 'kysely';
import type { DemoPlayer, DemoStaff } from './people.js';

/**
 * The seed's own reads (is this demo item there already?) and its writes outside the services:
 * user rows (made by sign-in, which no service does for someone else: the users area's fixture
 * writer) and past game sessions (history no service writes: a session is started through the
 * runtime, now).
 */

type Db = Kysely<Tables>;

/** Writes the users not there yet (the users area's fixture writer); answers how many were new. */
export async function insertMissingUsers(db: Db, people: Array<DemoPlayer | DemoStaff>, now: Date): Promise<number> {
  const written = await writeUserFixtures(
    db,
    people.map((person) => {
      const player = 'locale' in person ? person : undefined;
      return {
        id: person.id,
        email: person.email,
        display_name: person.displayName,
        provider: player?.provider ?? 'email',
        locale: player?.locale ?? 'en',
        timezone: player?.timezone ?? 'Europe/London',
        created_at: player?.createdAt ?? new Date(now.getTime() - 400 * 86_400_000),
        last_seen_at: player?.lastSeenAt ?? now,
        metadata: JSON.stringify({ demo: true }),
      };
    }),
  );
  return written.length;
}

export async function roleIdByKey(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('roles').select('id').where('key', '=', key).executeTakeFirst();
  return row?.id;
}

/** Whether the user holds the role (an expired grant counts: the seed never extends one). */
export async function holdsRole(db: Db, userId: string, roleId: string): Promise<boolean> {
  const row = await db
    .selectFrom('user_roles')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('role_id', '=', roleId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether an audit row records this action on this target (what the seed did once, even if undone since). */
export async function everAudited(db: Db, action: string, targetId: string): Promise<boolean> {
  const row = await db
    .selectFrom('audit_log')
    .select('id')
    .where('action', '=', action)
    .where('target_id', '=', targetId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function hasKey(
  db: Db,
  table: 'plan_rulesets' | 'plan_tiers' | 'catalog_achievements' | 'email_templates',
  key: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(table as 'plan_tiers')
    .select('key')
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

export async function termIdBySlug(
  db: Db,
  table: 'store_genres' | 'store_developers' | 'store_publishers',
  slug: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom(table as 'store_genres')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row?.id;
}

export async function gameBySlug(db: Db, slug: string): Promise<{ id: number; title: string } | undefined> {
  return db.selectFrom('store_games').select(['id', 'title']).where('slug', '=', slug).executeTakeFirst();
}

export async function publishedGames(db: Db): Promise<Array<{ id: number; slug: string; title: string }>> {
  return db
    .selectFrom('store_games')
    .select(['id', 'slug', 'title'])
    .where('status', '=', 'published')
    .orderBy('id')
    .execute();
}

export async function settingsPublishedVersion(db: Db, section: string): Promise<number | null | undefined> {
  const row = await db
    .selectFrom('site_settings')
    .select('published_version')
    .where('section', '=', section)
    .executeTakeFirst();
  return row === undefined ? undefined : row.published_version;
}

export async function pageIdBySlug(db: Db, slug: string): Promise<string | undefined> {
  const row = await db.selectFrom('site_pages').select('id').where('slug', '=', slug).executeTakeFirst();
  return row?.id;
}

export async function blockExists(db: Db, surface: string, slot: string, locale: string): Promise<boolean> {
  const row = await db
    .selectFrom('content_blocks')
    .select('id')
    .where('surface', '=', surface as 'landing')
    .where('slot', '=', slot)
    .where('locale', '=', locale)
    .executeTakeFirst();
  return row !== undefined;
}

export async function announcementExists(db: Db, title: string): Promise<boolean> {
  const row = await db.selectFrom('announcements').select('id').where('title', '=', title).executeTakeFirst();
  return row !== undefined;
}

/** A billing product the seed made, by the key it keeps in the product's metadata. */
export async function demoProductId(db: Db, demoKey: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('billing_products')
    .select('id')
    .where(sql<boolean>`metadata->>'demo_key' = ${demoKey}`)
    .executeTakeFirst();
  return row?.id;
}

export async function checkoutByRequestKey(
  db: Db,
  userId: string,
  requestKey: string,
): Promise<{ provider_checkout_id: string } | undefined> {
  return db
    .selectFrom('billing_checkout_sessions')
    .select('provider_checkout_id')
    .where('user_id', '=', userId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

export async function audienceIdByName(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('email_audiences').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

export async function campaignByName(db: Db, name: string): Promise<{ id: string; status: string } | undefined> {
  return db.selectFrom('email_campaigns').select(['id', 'status']).where('name', '=', name).executeTakeFirst();
}

export async function ticketExists(db: Db, userId: string, subject: string): Promise<boolean> {
  const row = await db
    .selectFrom('support_tickets')
    .select('id')
    .where('user_id', '=', userId)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the sessions not there yet (by id); answers how many were new. */
export async function insertMissingSessions(db: Db, sessions: Insertable<GameSessionsTable>[]): Promise<number> {
  if (sessions.length === 0) return 0;
  const rows = await db
    .insertInto('game_sessions')
    .values(sessions)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return rows.length;
}
