import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { idempotentAnswer } from '../../../kernel/idempotency.js';
import { mailDispatcherFor } from '../delivery/index.js';
import { CampaignDelivery } from './delivery.js';
import {
  cancelEmailCampaign,
  createEmailCampaign,
  getEmailCampaign,
  launchEmailCampaign,
  listEmailCampaigns,
  pauseEmailCampaign,
  resumeEmailCampaign,
  scheduleEmailCampaign,
  unscheduleEmailCampaign,
  updateEmailCampaign,
} from './route-options.js';

import { campaignCounts } from './schemas.js';
import { EmailCampaignsService } from './service.js';

/**
 * Email campaigns (operations 11 and 18). Launching snapshots the audience into the mail queue;
 * the dispatcher sends it, and `CampaignDelivery` follows its outcomes (stop on a run of
 * failures, `sent` when done). Scheduled campaigns are launched by the `launch-scheduled-campaigns` job.
 */
export function registerEmailCampaignRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'events' | 'log' | 'mail' | 'metrics' | 'signingKey' | 'write'>,
): void {
  const campaigns = new EmailCampaignsService(deps.db, deps.write);
  const delivery = new CampaignDelivery(deps.events);
  const unhook = mailDispatcherFor(deps).onSettled(delivery.onSettled);
  app.addHook('onClose', async () => unhook());
  countMessagesAtScrape(deps.metrics, campaigns);

  app.get('/v1/admin/email/campaigns', listEmailCampaigns, (request) => campaigns.list(request.query));
  app.post('/v1/admin/email/campaigns', createEmailCampaign, async (request, reply) =>
    reply.code(201).send(await campaigns.create(actorOf(request), request.body)),
  );
  app.get('/v1/admin/email/campaigns/:id', getEmailCampaign, (request) => campaigns.get(request.params.id));
  app.patch('/v1/admin/email/campaigns/:id', updateEmailCampaign, (request) =>
    campaigns.update(actorOf(request), request.params.id, request.body),
  );
  app.post('/v1/admin/email/campaigns/:id/launch', launchEmailCampaign, async (request, reply) =>
    idempotentAnswer(
      reply,
      await campaigns.launch(actorOf(request), request.params.id, request.headers['idempotency-key']),
    ),
  );
  app.post('/v1/admin/email/campaigns/:id/schedule', scheduleEmailCampaign, (request) =>
    campaigns.schedule(actorOf(request), request.params.id, request.body.at),
  );
  app.post('/v1/admin/email/campaigns/:id/unschedule', unscheduleEmailCampaign, (request) =>
    campaigns.unschedule(actorOf(request), request.params.id),
  );
  app.post('/v1/admin/email/campaigns/:id/pause', pauseEmailCampaign, (request) =>
    campaigns.pause(actorOf(request), request.params.id),
  );
  app.post('/v1/admin/email/campaigns/:id/resume', resumeEmailCampaign, async (request, reply) => {
    await campaigns.resume(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
  app.post('/v1/admin/email/campaigns/:id/cancel', cancelEmailCampaign, (request) =>
    campaigns.cancel(actorOf(request), request.params.id, request.body?.reason),
  );
}

/** The `email_campaign_messages` gauge, read from the database at each scrape. */
function countMessagesAtScrape(metrics: Deps<'metrics'>['metrics'], campaigns: EmailCampaignsService): void {
  metrics?.queryAtScrape(
    'email_campaign_messages',
    'Messages of the campaigns under way (sending, paused, or stopped after failures; shared by every instance) by ' +
      'state: queued, held (by a pause or a stop), sending, sent, failed, skipped (suppressed) or cancelled.',
    'state',
    campaignCounts.keyof().options,
    () => campaigns.messagesUnderWay(),
  );
}
