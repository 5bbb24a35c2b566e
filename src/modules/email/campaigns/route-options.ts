// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { idResult } from '../../../kernel/answers.js';
import { idempotencyKeyHeaders } from '../../../kernel/idempotency.js';
import {
  campaignIdParams,
  campaignsPage,
  campaignView,
  cancelCampaignBody,
  createCampaignBody,
  listCampaignsQuery,
  scheduleCampaignBody,
  updateCampaignBody,
} from './schemas.js';

const tags = ['email campaigns'];
const read = { perms: ['email.read'] } as const;
const write = { perms: ['email.write'] } as const;
const send = { perms: ['email.send'] } as const;
const UNKNOWN = '404 `not_found` for an unknown campaign';

export const listEmailCampaigns = {
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
} as const;

export const createEmailCampaign = {
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
} as const;

export const getEmailCampaign = {
  config: { ...read, errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getEmailCampaign',
    tags,
    summary: 'Get a campaign',
    description: `With its message counts by status. ${UNKNOWN}.`,
    params: campaignIdParams,
    response: { 200: campaignView },
  },
} as const;

export const updateEmailCampaign = {
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
} as const;

export const launchEmailCampaign = {
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
} as const;

export const scheduleEmailCampaign = {
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
} as const;

export const unscheduleEmailCampaign = {
  config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'unscheduleEmailCampaign',
    tags,
    summary: 'Unschedule a campaign',
    description: `Back to draft. ${UNKNOWN}; 422 \`invalid_state\` unless scheduled.`,
    params: campaignIdParams,
    response: { 200: campaignView },
  },
} as const;

export const pauseEmailCampaign = {
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
} as const;

export const resumeEmailCampaign = {
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
} as const;

export const cancelEmailCampaign = {
  config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
  schema: {
    operationId: 'cancelEmailCampaign',
    tags,
    summary: 'Cancel a campaign',
    description:
      `Drops what is still queued; what was sent stays sent. ${UNKNOWN}; 422 \`invalid_state\` for a sent or ` +
      `cancelled campaign. Audited.`,
    params: campaignIdParams,
    body: cancelCampaignBody,
    response: { 200: campaignView },
  },
} as const;
