import { z } from 'zod';
import { idResult } from '../../../kernel/answers.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { idempotencyKeyHeaders, idempotentAnswer } from '../../../kernel/idempotency.js';
import { mailDispatcherFor } from '../delivery/index.js';
import { CampaignDelivery } from './delivery.js';
import {
  campaignCounts,
  campaignIdParams,
  campaignsPage,
  campaignView,
  createCampaignBody,
  listCampaignsQuery,
  scheduleCampaignBody,
  updateCampaignBody,
} from './schemas.js';
import { EmailCampaignsService } from './service.js';

const tags = ['email campaigns'];
const read = { perms: ['email.read'] } as const;
const write = { perms: ['email.write'] } as const;
const send = { perms: ['email.send'] } as const;
const UNKNOWN = '404 `not_found` for an unknown campaign';
// Fastify validates a missing body as null.
const cancelBody = z
  .object({ reason: z.string().trim().min(3).max(500).optional() })
  .strict()
  .nullish();

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
  deps.metrics?.queryAtScrape(
    'email_campaign_messages',
    'Messages of the campaigns under way (sending, paused, or stopped after failures; shared by every instance) by ' +
      'state: queued, held (by a pause or a stop), sending, sent, failed, skipped (suppressed) or cancelled.',
    'state',
    campaignCounts.keyof().options,
    () => campaigns.messagesUnderWay(),
  );

  app.get(
    '/v1/admin/email/campaigns',
    {
      config: read,
      schema: {
        operationId: 'listEmailCampaigns',
        tags,
        summary: 'List campaigns',
        description:
          'Paged with `meta.total`, newest first by default (`sort=created_at|updated_at|name:asc|desc`). Filters ' +
          '`status`, `audience_id`, `q` (name). Each with its message counts.',
        querystring: listCampaignsQuery,
        response: { 200: campaignsPage },
      },
    },
    (request) => campaigns.list(request.query),
  );

  app.post(
    '/v1/admin/email/campaigns',
    {
      config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'createEmailCampaign',
        tags,
        summary: 'Create a campaign',
        description:
          'A draft: nothing is sent until it is launched or scheduled. Errors: 404 `not_found` (unknown template, ' +
          '`details.template_key`; unknown audience, `details.audience_id`); 422 `invalid_state` (the template ' +
          'has no published version). Audited (`email.campaign.create`).',
        body: createCampaignBody,
        response: { 201: idResult },
      },
    },
    async (request, reply) => reply.code(201).send(await campaigns.create(actorOf(request), request.body)),
  );

  app.get(
    '/v1/admin/email/campaigns/:id',
    {
      config: { ...read, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getEmailCampaign',
        tags,
        summary: 'Get a campaign',
        description: `With its message counts by status. ${UNKNOWN}.`,
        params: campaignIdParams,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.get(request.params.id),
  );

  app.patch(
    '/v1/admin/email/campaigns/:id',
    {
      config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'updateEmailCampaign',
        tags,
        summary: 'Edit a campaign before it launches',
        description:
          `Changes any of name, template, audience, vars and the failure limit of a draft or scheduled campaign (or ` +
          `one the scheduler could not launch). Errors: ${UNKNOWN}; 404 \`not_found\` for an unknown template or ` +
          `audience; 422 \`invalid_state\` once launched, or for an unpublished template. Audited.`,
        params: campaignIdParams,
        body: updateCampaignBody,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.update(actorOf(request), request.params.id, request.body),
  );

  app.post(
    '/v1/admin/email/campaigns/:id/launch',
    {
      config: { ...send, errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'launchEmailCampaign',
        tags,
        summary: 'Launch a campaign now',
        description:
          "Fixes the template's published version, queues one message per mailable audience member and starts " +
          'sending. Idempotent with an `Idempotency-Key` header. In depth: ' +
          '[docs/api/email.md](docs/api/email.md#launch-a-campaign-now).',
        headers: idempotencyKeyHeaders('launch'),
        params: campaignIdParams,
        response: { 200: campaignView },
      },
    },
    async (request, reply) => {
      const launched = await campaigns.launch(actorOf(request), request.params.id, request.headers['idempotency-key']);
      return idempotentAnswer(reply, launched);
    },
  );

  app.post(
    '/v1/admin/email/campaigns/:id/schedule',
    {
      config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
      schema: {
        operationId: 'scheduleEmailCampaign',
        tags,
        summary: 'Schedule a campaign',
        description:
          `Launches it at \`at\` (the scheduler checks every minute). The campaign must be able to launch now. ` +
          `Errors: ${UNKNOWN}; 422 \`invalid_request\` (\`at\` not in the future, or more than a year ahead); 422 ` +
          `\`invalid_state\` (as for launch). If it cannot launch when the time comes, it becomes \`failed\` with ` +
          `the reason and can be edited and scheduled again.`,
        params: campaignIdParams,
        body: scheduleCampaignBody,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.schedule(actorOf(request), request.params.id, request.body.at),
  );

  app.post(
    '/v1/admin/email/campaigns/:id/unschedule',
    {
      config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'unscheduleEmailCampaign',
        tags,
        summary: 'Unschedule a campaign',
        description: `Back to draft. ${UNKNOWN}; 422 \`invalid_state\` unless scheduled.`,
        params: campaignIdParams,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.unschedule(actorOf(request), request.params.id),
  );

  app.post(
    '/v1/admin/email/campaigns/:id/pause',
    {
      config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'pauseEmailCampaign',
        tags,
        summary: 'Pause a sending campaign',
        description:
          `Holds what is still queued (messages already with the mail server finish). ${UNKNOWN}; 422 ` +
          `\`invalid_state\` unless sending.`,
        params: campaignIdParams,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.pause(actorOf(request), request.params.id),
  );

  app.post(
    '/v1/admin/email/campaigns/:id/resume',
    {
      config: { ...send, errors: { 404: ['campaign'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'resumeEmailCampaign',
        tags,
        summary: 'Resume a campaign',
        description:
          'No body. A paused campaign sends on; one stopped by a run of delivery failures (`failed` after launch) ' +
          'also queues again its messages that certainly did not go out (never one that may have been delivered). ' +
          'No recipient gets the campaign twice. Errors: 404 `campaign` (unknown id); 422 `invalid_state` from ' +
          'any other status. Audited (`email.campaign.resume`).',
        params: campaignIdParams,
        response: { 204: z.null().describe('Resumed') },
      },
    },
    async (request, reply) => {
      await campaigns.resume(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/email/campaigns/:id/cancel',
    {
      config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'cancelEmailCampaign',
        tags,
        summary: 'Cancel a campaign',
        description:
          `Drops what is still queued; what was sent stays sent. ${UNKNOWN}; 422 \`invalid_state\` for a sent or ` +
          `cancelled campaign. Audited.`,
        params: campaignIdParams,
        body: cancelBody,
        response: { 200: campaignView },
      },
    },
    (request) => campaigns.cancel(actorOf(request), request.params.id, request.body?.reason),
  );
}
