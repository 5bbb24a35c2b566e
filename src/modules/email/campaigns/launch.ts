import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { AuditActor } from '../../../kernel/audit.js';
import { AppError, invalidState } from '../../../kernel/errors.js';
import type { JobContext, JobSummary } from '../../../kernel/areas/jobs.js';
import { auditedTransaction, type AuditedTransaction } from '../../../kernel/write.js';
import { findUsableTemplate, type UsableTemplate } from '../templates/index.js';
import {
  audienceSize,
  lockCampaign,
  lockDueCampaigns,
  snapshotAudience,
  templateKeyOf,
  updateCampaign,
  type CampaignRow,
} from './queries.js';
import { campaignPicture } from './audit-picture.js';

type Db = Kysely<Tables>;

/** The service's own actor, for what the scheduler does. */
const SCHEDULER: AuditActor = { userId: null, requestId: null, ip: null, userAgent: null };

/**
 * The published version of a template by key: 404 `not_found` for an unknown one, 422 `invalid_state` (the spec's code
 * for campaigns) when unpublished.
 */
export async function campaignTemplateByKey(trx: Db, key: string): Promise<UsableTemplate> {
  try {
    return await findUsableTemplate(trx, key);
  } catch (error) {
    if (error instanceof AppError && error.code === 'invalid_request') throw invalidState(error.details);
    throw error;
  }
}

async function campaignTemplate(trx: Db, templateId: string): Promise<UsableTemplate> {
  return campaignTemplateByKey(trx, await templateKeyOf(trx, templateId));
}

/**
 * Draft, scheduled, or failed before it ever launched (the scheduler could not launch it): still editable and
 * launchable.
 */
export function isUnlaunched(campaign: Pick<CampaignRow, 'status' | 'launched_at'>): boolean {
  return (
    campaign.status === 'draft' ||
    campaign.status === 'scheduled' ||
    (campaign.status === 'failed' && campaign.launched_at === null)
  );
}

/** What a launch needs, checked before anything is written: an audience and a published template. */
async function launchable(trx: Db, campaign: CampaignRow): Promise<{ audienceId: string; template: UsableTemplate }> {
  if (!isUnlaunched(campaign)) {
    throw invalidState({
      reason: 'only a draft or scheduled campaign (or one that failed to launch) can be launched',
      status: campaign.status,
    });
  }
  if (campaign.audience_id === null) throw invalidState({ reason: 'the campaign has no audience' });
  return { audienceId: campaign.audience_id, template: await campaignTemplate(trx, campaign.template_id) };
}

/** Checks a campaign could launch now (at scheduling time), writing nothing. */
export async function assertLaunchable(trx: Db, campaign: CampaignRow): Promise<void> {
  await launchable(trx, campaign);
}

/** A staff launch's Idempotency-Key and the hash of what it asked (the campaign). */
export interface LaunchRequest {
  key: string;
  fingerprint: string;
}

/**
 * Launches a locked campaign inside the caller's transaction: fixes the template version,
 * snapshots the audience's mailable members into the queue, and moves to `sending`. Every
 * refusal happens before the first write, so a refused launch leaves no trace. A staff launch's
 * Idempotency-Key is written on the campaign with it.
 */
export async function launchLocked(
  w: Pick<AuditedTransaction, 'trx' | 'actor' | 'audit' | 'auditRow'>,
  campaign: CampaignRow,
  now: Date,
  request?: LaunchRequest,
): Promise<{ recipients: number; excluded: number }> {
  const { trx, actor } = w;
  const { audienceId, template } = await launchable(trx, campaign);
  const members = await audienceSize(trx, audienceId);
  const recipients = await snapshotAudience(
    trx,
    {
      id: campaign.id,
      audience_id: audienceId,
      template_id: template.id,
      template_version: template.version,
      vars: campaign.vars,
    },
    template.category,
  );
  if (recipients === 0) throw invalidState({ reason: 'the audience has no mailable members', members });
  const excluded = members - recipients;
  const launched = {
    status: 'sending',
    template_version: template.version,
    recipients,
    excluded,
    launched_at: now,
    launched_by: actor.userId,
    status_reason: null,
    consecutive_failures: 0,
    updated_at: now,
    ...(actor.userId === null ? {} : { updated_by: actor.userId }),
    ...(request === undefined
      ? {}
      : { launch_request_key: request.key, launch_request_fingerprint: request.fingerprint }),
  } as const;
  await updateCampaign(trx, campaign.id, launched);
  await w.auditRow(campaignPicture, {
    action: 'email.campaign.launch',
    targetType: 'email_campaign',
    targetId: campaign.id,
    before: campaign,
    after: launched,
    only: ['status'],
    extra: {
      audience_id: audienceId,
      template_id: template.id,
      template_version: template.version,
      recipients,
      excluded,
      ...(campaign.scheduled_at === null ? {} : { scheduled_at: campaign.scheduled_at }),
      ...(request === undefined ? {} : { idempotency_key: request.key }),
    },
  });
  return { recipients, excluded };
}

/**
 * The `launch-scheduled-campaigns` job: launches each campaign whose time has come. One that
 * cannot launch (no audience, template unpublished, nobody mailable) is marked `failed` with the
 * reason, rather than retried every minute; staff fix it and schedule or launch it again. A
 * refusal is found before any write, so the run's transaction keeps the others' launches.
 */
export async function launchScheduledCampaignsJob(trx: Db, { now }: JobContext): Promise<JobSummary> {
  const due = await lockDueCampaigns(trx, now, 20);
  const scheduler = auditedTransaction(trx, SCHEDULER);
  let launched = 0;
  let failed = 0;
  for (const { id } of due) {
    const campaign = (await lockCampaign(trx, id))!;
    try {
      await launchLocked(scheduler, campaign, now);
      launched += 1;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const reason = (error.details as { reason?: string } | undefined)?.reason ?? error.code;
      await updateCampaign(trx, id, {
        status: 'failed',
        status_reason: `could not launch: ${reason}`,
        updated_at: now,
      });
      await scheduler.audit({
        action: 'email.campaign.launch_failed',
        targetType: 'email_campaign',
        targetId: id,
        extra: { reason, details: error.details ?? null },
      });
      failed += 1;
    }
  }
  return { launched, failed };
}
