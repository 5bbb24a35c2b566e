import { defineArea } from '../../../composition/platform.js';
import { launchScheduledCampaignsJob } from './launch.js';
import { registerEmailCampaignRoutes } from './routes.js';

/** Email campaigns: launched or scheduled sends of a template to an audience. */
export const emailCampaignsModule = defineArea(
  ['config', 'db', 'events', 'log', 'mail', 'metrics', 'signingKey', 'write'],
  {
    name: 'email/campaigns',
    routes: [registerEmailCampaignRoutes],
    tags: {
      'email campaigns': 'Email campaigns: compose, schedule, launch, pause, resume, cancel.',
    },
    jobs: {
      'launch-scheduled-campaigns': launchScheduledCampaignsJob,
    },
    permissions: {
      'email.read': 'Read email audiences, templates, campaigns and the outbox.',
      'email.write': 'Edit email audiences, templates and campaigns.',
      'email.send': 'Launch, schedule and resume campaigns; send email broadcasts.',
    },
    cacheTopics: [],
    events: [
      'email.campaign_launched',
      'email.campaign_scheduled',
      'email.campaign_unscheduled',
      'email.campaign_paused',
      'email.campaign_resumed',
      'email.campaign_cancelled',
      'email.campaign_stopped',
      'email.campaign_sent',
    ],
  },
);
