import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import { audienceNameOf, mailableMembers } from '../audiences/index.js';
import type { CampaignCounts, CampaignView, ListCampaignsQuery } from './schemas.js';
import type { EmailCampaignsTable } from './tables.js';
import './tables.js';
import '../tables.js';

type Db = Kysely<Tables>;
export type CampaignRow = Selectable<EmailCampaignsTable>;

/** What a campaign's view shows: every column but the failure run and the launch's request and launcher. */
const VIEW_COLUMNS = [
  'c.id',
  'c.name',
  'c.template_id',
  'c.template_version',
  'c.audience_id',
  'c.vars',
  'c.status',
  'c.scheduled_at',
  'c.max_consecutive_failures',
  'c.recipients',
  'c.excluded',
  'c.status_reason',
  'c.launched_at',
  'c.completed_at',
  'c.created_by',
  'c.updated_by',
  'c.created_at',
  'c.updated_at',
] as const;

const EMPTY_COUNTS: CampaignCounts = { queued: 0, held: 0, sending: 0, sent: 0, failed: 0, skipped: 0, cancelled: 0 };

/** Locked for a status change: changes of one campaign (staff, the dispatcher's outcomes, the scheduler) queue up. */
export function lockCampaign(trx: Db, id: string): Promise<CampaignRow | undefined> {
  return trx.selectFrom('email_campaigns').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function insertCampaign(
  trx: Db,
  values: {
    name: string;
    template_id: string;
    audience_id: string | null;
    vars: Record<string, unknown>;
    max_consecutive_failures?: number;
    created_by: string;
  },
) {
  return trx
    .insertInto('email_campaigns')
    .values({ ...values, vars: JSON.stringify(values.vars), updated_by: values.created_by })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/**
 * The views of these campaigns in the order given: the rows, their template and audience, and message counts by status.
 */
export async function campaignViews(db: Db, ids: string[]): Promise<CampaignView[]> {
  if (ids.length === 0) return [];
  const [rows, counts] = await Promise.all([
    db
      .selectFrom('email_campaigns as c')
      .innerJoin('email_templates as t', 't.id', 'c.template_id')
      .select(VIEW_COLUMNS)
      .select(['t.key as template_key', audienceNameOf(sql.ref('c.audience_id')).as('audience_name')])
      .where('c.id', 'in', ids)
      .execute(),
    db
      .selectFrom('email_messages')
      .select(['campaign_id', 'status', 'held', sql<number>`count(*)::int`.as('n')])
      .where('campaign_id', 'in', ids)
      .groupBy(['campaign_id', 'status', 'held'])
      .execute(),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id): CampaignView[] => {
    const row = byId.get(id);
    if (row === undefined) return [];
    const tally = { ...EMPTY_COUNTS };
    for (const count of counts.filter((c) => c.campaign_id === id)) {
      const key = count.status === 'queued' && count.held ? 'held' : count.status;
      tally[key] += count.n;
    }
    const { vars, ...view } = row;
    return [
      { ...view, vars: vars as Record<string, unknown>, audience_name: row.audience_name ?? null, counts: tally },
    ];
  });
}

/** A campaign whose messages are still going out or waiting on staff: sending, paused, or stopped after failures. */
const UNDER_WAY = sql<boolean>`c.status IN ('sending', 'paused') OR (c.status = 'failed' AND c.launched_at IS NOT NULL)`;

/**
 * The messages of every campaign under way, by status (queued ones held apart): read at every
 * scrape (metrics), so bounded by the campaigns under way through the (campaign_id, status)
 * index, never by the history of finished ones.
 */
export async function messagesOfCampaignsUnderWay(db: Db): Promise<CampaignCounts> {
  const counts = await db
    .selectFrom('email_campaigns as c')
    .innerJoin('email_messages as m', 'm.campaign_id', 'c.id')
    .select(['m.status', 'm.held', sql<number>`count(*)::int`.as('n')])
    .where(UNDER_WAY)
    .groupBy(['m.status', 'm.held'])
    .execute();
  const tally = { ...EMPTY_COUNTS };
  for (const count of counts) tally[count.status === 'queued' && count.held ? 'held' : count.status] += count.n;
  return tally;
}

export async function listCampaignIds(db: Db, query: ListCampaignsQuery): Promise<{ ids: string[]; total: number }> {
  let filtered = db.selectFrom('email_campaigns');
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.audience_id !== undefined) filtered = filtered.where('audience_id', '=', query.audience_id);
  if (query.q !== undefined) filtered = filtered.where('name', 'ilike', likePattern(query.q));
  const { rows, total } = await readPage(filtered, query, (matching) =>
    matching.select('id').orderBy(query.sort.field, query.sort.direction).orderBy('id'),
  );
  return { ids: rows.map((row) => row.id), total };
}

/**
 * The launch snapshot: one templated message per mailable member of the audience (the audience
 * module's definition: not unsubscribed, account active or none), in one INSERT … SELECT. The
 * unique (campaign, address) index makes a repeated launch add nothing.
 */
export async function snapshotAudience(
  trx: Db,
  campaign: { id: string; audience_id: string; template_id: string; template_version: number; vars: unknown },
  category: string,
): Promise<number> {
  const members = mailableMembers(trx, campaign.audience_id).select([
    sql<string>`${category}`.as('category'),
    sql<string>`${campaign.template_id}::uuid`.as('template_id'),
    sql<number>`${campaign.template_version}::int`.as('template_version'),
    sql<string>`jsonb_build_object('display_name', coalesce(users.display_name, '')) ||
      ${JSON.stringify(campaign.vars ?? {})}::jsonb`.as('vars'),
    sql<string>`${campaign.id}::uuid`.as('campaign_id'),
  ]);
  const inserted = await trx
    .insertInto('email_messages')
    .columns(['to_email', 'user_id', 'category', 'template_id', 'template_version', 'vars', 'campaign_id'])
    .expression(members)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}

/** The audience's statements are audiences': its member count and whether it exists. */
export { audienceExists, countMembers as audienceSize } from '../audiences/index.js';

/** Holds what the campaign still has queued (pause, stop). */
export async function holdQueued(trx: Db, campaignId: string): Promise<number> {
  const result = await trx
    .updateTable('email_messages')
    .set({ held: true })
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'queued')
    .where('held', '=', false)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Releases what was held, due now (a retry waiting out its backoff when the campaign stopped goes at once). */
export async function releaseHeld(trx: Db, campaignId: string, now: Date): Promise<number> {
  const result = await trx
    .updateTable('email_messages')
    .set({ held: false, next_attempt_at: now })
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'queued')
    .where('held', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Cancels everything still queued, held or not. */
export async function cancelQueued(trx: Db, campaignId: string): Promise<number> {
  const result = await trx
    .updateTable('email_messages')
    .set({ status: 'cancelled', held: false })
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Failed messages that certainly did not go out (the transport refused or never answered
 * before its deadline, not 'interrupted' mid-send), queued again with fresh attempts: resuming a
 * stopped campaign retries them, and a message that may have been delivered is never resent.
 */
export async function requeueRetryable(trx: Db, campaignId: string, now: Date): Promise<number> {
  const result = await trx
    .updateTable('email_messages')
    .set({ status: 'queued', attempts: 0, next_attempt_at: now, last_error: null, held: false })
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'failed')
    .where((eb) => eb.or([eb('last_error', 'is', null), eb('last_error', '<>', 'interrupted')]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Whether anything of the campaign is still waiting or in flight. */
export async function hasOutstanding(trx: Db, campaignId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('email_messages')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where('status', 'in', ['queued', 'sending'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateCampaign(trx: Db, id: string, changes: Updateable<EmailCampaignsTable>): Promise<void> {
  await trx.updateTable('email_campaigns').set(changes).where('id', '=', id).execute();
}

/** The campaign this staff member launched under this Idempotency-Key; undefined: none. */
export function campaignByLaunchKey(db: Db, launchedBy: string, launchRequestKey: string) {
  return db
    .selectFrom('email_campaigns')
    .select('launch_request_fingerprint')
    .where('launched_by', '=', launchedBy)
    .where('launch_request_key', '=', launchRequestKey)
    .executeTakeFirst();
}

/** What a campaign's dashboard event says of it after a change. */
export function campaignStatusAndRecipients(trx: Db, id: string) {
  return trx
    .selectFrom('email_campaigns')
    .select(['status', 'recipients'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

export async function templateKeyOf(trx: Db, templateId: string): Promise<string> {
  const template = await trx
    .selectFrom('email_templates')
    .select('key')
    .where('id', '=', templateId)
    .executeTakeFirstOrThrow();
  return template.key;
}

/** Up to `limit` scheduled campaigns due at `now`, earliest first, locked; those locked elsewhere are skipped. */
export function lockDueCampaigns(trx: Db, now: Date, limit: number) {
  return trx
    .selectFrom('email_campaigns')
    .select('id')
    .where('status', '=', 'scheduled')
    .where('scheduled_at', '<=', now)
    .orderBy('scheduled_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}
