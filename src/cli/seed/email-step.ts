import { createAudienceBody, replaceMembersBody } from '../../modules/email/audiences/schemas.js';
import { EmailAudiencesService } from '../../modules/email/audiences/service.js';
import { CampaignDelivery } from '../../modules/email/campaigns/delivery.js';
import { createCampaignBody } from '../../modules/email/campaigns/schemas.js';
import { EmailCampaignsService } from '../../modules/email/campaigns/service.js';
import { composeContext } from '../../modules/email/delivery/compose.js';
import { MailDispatcher } from '../../modules/email/delivery/dispatcher.js';
import { createTemplateBody } from '../../modules/email/templates/schemas.js';
import { EmailTemplatesService } from '../../modules/email/templates/service.js';
import { staffActor, type SeedContext } from './context.js';
import { audienceIdByName, campaignByName, hasKey } from './queries.js';

const MARKETING = 'yuki.marketing.demo@example.com';
const TEMPLATE_KEY = 'demo-newsletter';
const AUDIENCE = 'Demo: all players';
const SENT_CAMPAIGN = 'Demo: November newsletter';
const DRAFT_CAMPAIGN = 'Demo: Winter sale (draft)';
/** The outbox sends nothing, so nothing needs pacing: one round takes everything queued. */
const OUTBOX_RATE_PER_SECOND = 10_000;

/** A published template, an audience of every demo player, one campaign launched and one left a draft. */
export async function seedEmail(context: SeedContext): Promise<void> {
  const { platform, tally, players } = context;
  const db = platform.db;
  const actor = staffActor(context, MARKETING);

  const templateExists = await hasKey(db, 'email_templates', TEMPLATE_KEY);
  tally.count('email templates', !templateExists);
  if (!templateExists) {
    // Never rendered for a preview here: the link maker is not asked for.
    const templates = new EmailTemplatesService(db, platform.write, { unsubscribeUrl: () => '' });
    await templates.create(
      actor,
      createTemplateBody.parse({
        key: TEMPLATE_KEY,
        name: 'Monthly newsletter',
        category: 'marketing',
        version: {
          subject: 'What is new on Nimbus Play this month',
          html: '<p>Hi {{display_name}},</p><p>Harbor Lights is out, and Pro members now stream at 1440p.</p>',
          text: 'Hi {{display_name}},\n\nHarbor Lights is out, and Pro members now stream at 1440p.',
          note: 'first issue',
        },
      }),
    );
    await templates.publish(actor, TEMPLATE_KEY, 1);
  }

  const audiences = new EmailAudiencesService(db, platform.write);
  let audienceId = await audienceIdByName(db, AUDIENCE);
  tally.count('email audiences', audienceId === undefined);
  if (audienceId === undefined) {
    audienceId = (
      await audiences.create(actor, createAudienceBody.parse({ name: AUDIENCE, description: 'Every demo player.' }))
    ).id;
    await audiences.replaceMembers(
      actor,
      audienceId,
      replaceMembersBody.parse({ members: players.map((player) => ({ user_id: player.id })) }),
    );
  }

  const campaigns = new EmailCampaignsService(db, platform.write);
  const sent = await campaignByName(db, SENT_CAMPAIGN);
  tally.count('email campaigns', sent === undefined);
  if (sent === undefined) {
    const { id } = await campaigns.create(
      actor,
      createCampaignBody.parse({ name: SENT_CAMPAIGN, template_key: TEMPLATE_KEY, audience_id: audienceId }),
    );
    await campaigns.launch(actor, id);
  }
  const draft = await campaignByName(db, DRAFT_CAMPAIGN);
  tally.count('email campaigns', draft === undefined);
  if (draft === undefined)
    await campaigns.create(
      actor,
      createCampaignBody.parse({ name: DRAFT_CAMPAIGN, template_key: TEMPLATE_KEY, audience_id: audienceId }),
    );
}

/**
 * What serve's dispatcher does on the outbox transport: every queued message (the campaign's,
 * the tickets' confirmations) marked sent, and the campaign with them. With SMTP_URL set the
 * seed never hands mail to a real server: the running service sends it.
 */
export async function deliverQueuedMail(context: SeedContext): Promise<void> {
  const { platform } = context;
  if (platform.mail.kind !== 'outbox') {
    context.tally.skipped('mail delivered', 'SMTP_URL is set: the running service sends what is queued');
    return;
  }
  const dispatcher = new MailDispatcher({
    write: platform.write,
    transport: platform.mail,
    compose: () => composeContext(platform),
    ratePerSecond: OUTBOX_RATE_PER_SECOND,
    log: platform.log,
  });
  dispatcher.onSettled(new CampaignDelivery(platform.events).onSettled);
  for (;;) {
    const round = await dispatcher.runOnce();
    context.tally.created('mail delivered', round.sent);
    if (round.claimed + round.skipped === 0) break;
  }
}
