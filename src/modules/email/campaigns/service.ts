import type { Kysely, Updateable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalidRequest, invalidState, notFound } from '../../../kernel/errors.js';
import { requestFingerprint } from '../../../kernel/idempotency.js';
import { paged } from '../../../kernel/pagination.js';
import { isUniqueViolation } from '../../../lib/sql-errors.js';
import type { AuditedWrite, Writes } from '../../../kernel/write.js';
import { assertLaunchable, campaignTemplateByKey, isUnlaunched, launchLocked, type LaunchRequest } from './launch.js';
import {
  audienceExists,
  campaignByLaunchKey,
  campaignStatusAndRecipients,
  campaignViews,
  cancelQueued,
  hasOutstanding,
  holdQueued,
  insertCampaign,
  listCampaignIds,
  lockCampaign,
  messagesOfCampaignsUnderWay,
  releaseHeld,
  requeueRetryable,
  updateCampaign,
  type CampaignRow,
} from './queries.js';
import type {
  CampaignCounts,
  CampaignView,
  CreateCampaignInput,
  ListCampaignsQuery,
  UpdateCampaignInput,
} from './schemas.js';
import type { CampaignStatus, EmailCampaignsTable } from './tables.js';
import { campaignPicture } from './audit-picture.js';

type Db = Kysely<Tables>;

const YEAR_MS = 366 * 24 * 3_600_000;
const LAUNCH_KEY_INDEX = 'email_campaigns_launch_request_key_idx';

/** Unknown campaign id: operation 18 names the code `campaign`; the other routes use `not_found`. */
type MissingCode = 'campaign' | 'not_found';

/**
 * Staff campaigns: create and edit drafts, launch now or on schedule, pause, resume (operation
 * 18), cancel. Every change locks the campaign row, writes its audit row in the same transaction
 * and publishes a dashboard event that goes out after commit. Delivery itself is the
 * dispatcher's; `CampaignDelivery` follows its outcomes.
 */
export class EmailCampaignsService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(query: ListCampaignsQuery) {
    const { ids, total } = await listCampaignIds(this.db, query);
    return paged(await campaignViews(this.db, ids), query, total);
  }

  async get(id: string): Promise<CampaignView> {
    const [view] = await campaignViews(this.db, [id]);
    if (view === undefined) throw notFound();
    return view;
  }

  /** The messages of every campaign under way, by state (metrics read it at each scrape). */
  messagesUnderWay(): Promise<CampaignCounts> {
    return messagesOfCampaignsUnderWay(this.db);
  }

  /**
   * Operation 11: a draft. 404 `not_found` for an unknown template or audience; 422 `invalid_state` for an unpublished
   * template.
   */
  async create(actor: Actor, input: CreateCampaignInput): Promise<{ id: string }> {
    return this.write(actor, async (w) => {
      const template = await campaignTemplateByKey(w.trx, input.template_key);
      if (input.audience_id != null) await this.#audience(w.trx, input.audience_id);
      const row = await insertCampaign(w.trx, {
        name: input.name,
        template_id: template.id,
        audience_id: input.audience_id ?? null,
        vars: input.vars,
        created_by: actor.userId,
        ...(input.max_consecutive_failures === undefined
          ? {}
          : { max_consecutive_failures: input.max_consecutive_failures }),
      });
      await w.auditRow(campaignPicture, {
        action: 'email.campaign.create',
        targetType: 'email_campaign',
        targetId: row.id,
        after: { ...input, audience_id: input.audience_id ?? null },
        only: ['name', 'template_key', 'audience_id'],
      });
      return row;
    });
  }

  /** Edits a campaign that has not launched; a scheduled one stays scheduled. */
  async update(actor: Actor, id: string, input: UpdateCampaignInput): Promise<CampaignView> {
    await this.write(actor, async (w) => {
      const campaign = await this.#locked(w.trx, id, 'not_found');
      if (!isUnlaunched(campaign))
        throw invalidState({ reason: 'a campaign can be edited only before it launches', status: campaign.status });
      const template =
        input.template_key === undefined ? undefined : await campaignTemplateByKey(w.trx, input.template_key);
      if (input.audience_id != null) await this.#audience(w.trx, input.audience_id);
      const changes = {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(template === undefined ? {} : { template_id: template.id }),
        ...(input.audience_id === undefined ? {} : { audience_id: input.audience_id }),
        ...(input.vars === undefined ? {} : { vars: JSON.stringify(input.vars) }),
        ...(input.max_consecutive_failures === undefined
          ? {}
          : { max_consecutive_failures: input.max_consecutive_failures }),
      };
      await updateCampaign(w.trx, id, { ...changes, updated_by: actor.userId, updated_at: this.clock() });
      // The edit as sent (every field of the body), against the stored fields it names.
      await w.auditRow(campaignPicture, {
        action: 'email.campaign.update',
        targetType: 'email_campaign',
        targetId: id,
        before: campaign,
        after: input,
        only: { before: ['name', 'template_id', 'audience_id'] },
      });
    });
    return this.get(id);
  }

  /**
   * With an Idempotency-Key, a repeat by the same staff member answers the campaign as it is now
   * (`replayed`) and launches nothing more; the key sent to launch another campaign is 409
   * `conflict`. The key is written on the campaign with its launch: a repeat racing the first
   * waits on the campaign's row lock (another campaign: on the key's unique index), then finds it.
   */
  async launch(actor: Actor, id: string, idempotencyKey?: string): Promise<CampaignView & { replayed: boolean }> {
    const request =
      idempotencyKey === undefined
        ? undefined
        : { key: idempotencyKey, fingerprint: requestFingerprint({ campaign_id: id }) };
    let replayed = false;
    try {
      await this.#change(actor, id, 'not_found', async (w, campaign, now) => {
        if (request !== undefined && (await this.#launchedUnder(w.trx, actor, request))) {
          replayed = true;
          return undefined;
        }
        await launchLocked(w, campaign, now, request);
        return { event: 'email.campaign_launched' };
      });
    } catch (error) {
      if (
        request === undefined ||
        !isUniqueViolation(error, LAUNCH_KEY_INDEX) ||
        !(await this.#launchedUnder(this.db, actor, request))
      )
        throw error;
      replayed = true;
    }
    return { ...(await this.get(id)), replayed };
  }

  /** Whether this staff member launched with this key before; 409 when that launch was of another campaign. */
  async #launchedUnder(db: Db, actor: Actor, request: LaunchRequest): Promise<boolean> {
    const earlier = await campaignByLaunchKey(db, actor.userId, request.key);
    if (earlier === undefined) return false;
    if (earlier.launch_request_fingerprint !== request.fingerprint)
      throw conflict({ reason: 'this idempotency key was already used for a different request' });
    return true;
  }

  /** Sets (or moves) the launch time; the campaign must be able to launch now, so a mistake shows at once. */
  schedule(actor: Actor, id: string, at: string): Promise<CampaignView> {
    return this.#change(actor, id, 'not_found', async (w, campaign, now) => {
      const when = new Date(at);
      if (when <= now || when.getTime() - now.getTime() > YEAR_MS)
        throw invalidRequest({ field: 'at', reason: 'must be in the future, within a year' });
      await assertLaunchable(w.trx, campaign);
      await this.#setStatus(
        w,
        campaign,
        'scheduled',
        { scheduled_at: when, status_reason: null },
        'email.campaign.schedule',
        { scheduled_at: when.toISOString() },
      );
      return { event: 'email.campaign_scheduled' };
    });
  }

  /** A scheduled campaign back to draft. */
  unschedule(actor: Actor, id: string): Promise<CampaignView> {
    return this.#change(actor, id, 'not_found', async (w, campaign) => {
      if (campaign.status !== 'scheduled')
        throw invalidState({ reason: 'only a scheduled campaign can be unscheduled', status: campaign.status });
      await this.#setStatus(w, campaign, 'draft', { scheduled_at: null }, 'email.campaign.unschedule');
      return { event: 'email.campaign_unscheduled' };
    });
  }

  /** Holds what is still queued; messages already handed to the transport finish. */
  pause(actor: Actor, id: string): Promise<CampaignView> {
    return this.#change(actor, id, 'not_found', async (w, campaign) => {
      if (campaign.status !== 'sending')
        throw invalidState({ reason: 'only a sending campaign can be paused', status: campaign.status });
      const held = await holdQueued(w.trx, id);
      await this.#setStatus(w, campaign, 'paused', { status_reason: 'paused by staff' }, 'email.campaign.pause', {
        held,
      });
      return { event: 'email.campaign_paused' };
    });
  }

  /**
   * Operation 18. A paused campaign sends on; one stopped by delivery failures (`failed` after
   * launch) also queues again the messages that certainly did not go out. 404 `campaign`;
   * 422 `invalid_state` from any other status.
   */
  async resume(actor: Actor, id: string): Promise<void> {
    await this.#change(actor, id, 'campaign', async (w, campaign, now) => {
      const stopped = campaign.status === 'failed' && campaign.launched_at !== null;
      if (campaign.status !== 'paused' && !stopped)
        throw invalidState({
          reason: 'only a paused campaign, or one stopped by delivery failures, can be resumed',
          status: campaign.status,
        });
      const released = await releaseHeld(w.trx, id, now);
      const requeued = stopped ? await requeueRetryable(w.trx, id, now) : 0;
      const done = !(await hasOutstanding(w.trx, id));
      await this.#setStatus(
        w,
        campaign,
        done ? 'sent' : 'sending',
        { status_reason: null, consecutive_failures: 0, ...(done ? { completed_at: now } : {}) },
        'email.campaign.resume',
        { released, requeued },
      );
      return { event: 'email.campaign_resumed' };
    });
  }

  /** Drops what is still queued; sent mail stays sent. */
  cancel(actor: Actor, id: string, reason: string | undefined): Promise<CampaignView> {
    return this.#change(actor, id, 'not_found', async (w, campaign, now) => {
      if (campaign.status === 'sent' || campaign.status === 'cancelled')
        throw invalidState({ reason: `a ${campaign.status} campaign cannot be cancelled`, status: campaign.status });
      const cancelled = await cancelQueued(w.trx, id);
      await this.#setStatus(
        w,
        campaign,
        'cancelled',
        { status_reason: reason ?? 'cancelled by staff', completed_at: now },
        'email.campaign.cancel',
        { cancelled },
        reason,
      );
      return { event: 'email.campaign_cancelled' };
    });
  }

  /**
   * A change of one locked campaign with its dashboard event; a change that answers undefined changed nothing and
   * publishes none.
   */
  async #change(
    actor: Actor,
    id: string,
    missing: MissingCode,
    change: (w: AuditedWrite, campaign: CampaignRow, now: Date) => Promise<{ event: string } | undefined>,
  ): Promise<CampaignView> {
    await this.write(actor, async (w) => {
      const campaign = await this.#locked(w.trx, id, missing);
      const changed = await change(w, campaign, this.clock());
      if (changed === undefined) return;
      const { event } = changed;
      const after = await campaignStatusAndRecipients(w.trx, id);
      await w.publish({
        kind: 'dashboard',
        name: event,
        payload: { campaign_id: id, name: campaign.name, status: after.status, recipients: after.recipients },
      });
    });
    return this.get(id);
  }

  async #setStatus(
    w: AuditedWrite,
    campaign: CampaignRow,
    status: CampaignStatus,
    columns: Updateable<EmailCampaignsTable>,
    action: string,
    extra: Record<string, unknown> = {},
    reason?: string,
  ) {
    const changes = { ...columns, status, updated_by: w.actor.userId, updated_at: this.clock() };
    await updateCampaign(w.trx, campaign.id, changes);
    await w.auditRow(campaignPicture, {
      action,
      targetType: 'email_campaign',
      targetId: campaign.id,
      reason: reason ?? null,
      before: campaign,
      after: changes,
      only: ['status'],
      extra,
    });
  }

  async #locked(trx: Db, id: string, missing: MissingCode): Promise<CampaignRow> {
    const campaign = await lockCampaign(trx, id);
    if (campaign === undefined) throw notFound(missing);
    return campaign;
  }

  async #audience(trx: Db, id: string): Promise<void> {
    if (!(await audienceExists(trx, id))) throw notFound('not_found', { audience_id: id });
  }
}
