import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { EventPublisher } from '../../../kernel/events.js';
import type { SettledMessage } from '../delivery/index.js';
import { hasOutstanding, holdQueued, lockCampaign, updateCampaign } from './queries.js';

type Db = Kysely<Tables>;

/**
 * Follows the dispatcher's outcomes for campaign mail, inside the transaction that records them:
 * a failure (final, or one going back for a retry) adds to the campaign's run of failures and a
 * delivery ends it; when the run reaches the campaign's limit, the campaign stops (`failed`,
 * resumable) and what is still queued is held. A sending campaign with nothing left queued or in
 * flight is `sent`. The campaign row is locked, so two dispatchers' outcomes count one by one.
 */
export class CampaignDelivery {
  constructor(
    private readonly events: EventPublisher,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  readonly onSettled = async (trx: Db, settled: SettledMessage[]): Promise<void> => {
    const byCampaign = new Map<string, SettledMessage[]>();
    for (const message of settled) {
      if (message.campaign_id === null) continue;
      byCampaign.set(message.campaign_id, [...(byCampaign.get(message.campaign_id) ?? []), message]);
    }
    for (const [campaignId, messages] of [...byCampaign].sort(([a], [b]) => a.localeCompare(b)))
      await this.#follow(trx, campaignId, messages);
  };

  async #follow(trx: Db, campaignId: string, messages: SettledMessage[]): Promise<void> {
    const campaign = await lockCampaign(trx, campaignId);
    if (campaign === undefined) return;
    let run = campaign.consecutive_failures;
    for (const message of messages) {
      if (message.status === 'sent') run = 0;
      else if (message.status === 'failed' || message.status === 'queued') run += 1;
    }
    const now = this.clock();
    if (campaign.status === 'sending' && run >= campaign.max_consecutive_failures) {
      const held = await holdQueued(trx, campaignId);
      const reason = `stopped after ${run} delivery failures in a row`;
      await updateCampaign(trx, campaignId, {
        status: 'failed',
        status_reason: reason,
        consecutive_failures: run,
        updated_at: now,
      });
      await this.events.publish(trx, {
        kind: 'dashboard',
        name: 'email.campaign_stopped',
        payload: { campaign_id: campaignId, name: campaign.name, reason, held },
      });
      return;
    }
    const done = campaign.status === 'sending' && !(await hasOutstanding(trx, campaignId));
    await updateCampaign(trx, campaignId, {
      consecutive_failures: run,
      ...(done ? { status: 'sent' as const, completed_at: now, updated_at: now } : {}),
    });
    if (done)
      await this.events.publish(trx, {
        kind: 'dashboard',
        name: 'email.campaign_sent',
        payload: { campaign_id: campaignId, name: campaign.name, recipients: campaign.recipients },
      });
  }
}
