import { expect } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { TestApp, TestUser } from './app.js';

/**
 * Email campaigns as tests need them: a published template and an audience, written to the
 * database as staff would have left them, and the campaign itself made (and launched) over its
 * real routes by a staff member holding email.write and email.send.
 */

type Db = Kernel['db'];

export interface TemplateParts {
  category?: 'marketing' | 'transactional';
  name?: string;
  subject?: string;
  html?: string;
  text?: string;
}

/** A template under `key` whose version 1 is published (a marketing one with an unsubscribe link by default); its id. */
export async function publishedTemplate(db: Db, key: string, parts: TemplateParts = {}): Promise<string> {
  const { category = 'marketing', name = 'News', subject = 'News' } = parts;
  const template = await db
    .insertInto('email_templates')
    .values({ key, name, description: null, category, created_by: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('email_template_versions')
    .values({
      template_id: template.id,
      version: 1,
      subject,
      html: parts.html ?? '<p>News</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
      text: parts.text ?? 'News {{unsubscribe_url}}',
      note: null,
      created_by: null,
    })
    .execute();
  await db
    .updateTable('email_templates')
    .set({ published_version: 1, published_at: new Date() })
    .where('id', '=', template.id)
    .execute();
  return template.id;
}

/** An audience of these addresses (no user linked); its id. */
export async function audienceOf(db: Db, members: string[], name = 'Players'): Promise<string> {
  const audience = await db
    .insertInto('email_audiences')
    .values({ name, description: null, created_by: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (members.length > 0)
    await db
      .insertInto('email_audience_members')
      .values(members.map((email) => ({ audience_id: audience.id, email, user_id: null })))
      .execute();
  return audience.id;
}

export interface CampaignInput {
  templateKey: string;
  /** The addresses of its new audience. */
  members: string[];
  name?: string;
  vars?: Record<string, unknown>;
  /** More of the create body (a schedule…). */
  extra?: object;
}

/** A draft campaign of the template to a new audience of `members`, made by `staff` over the route; its id. */
export async function draftCampaign(
  t: Pick<TestApp, 'db' | 'request'>,
  staff: TestUser,
  { templateKey, members, name = 'News', vars = {}, extra = {} }: CampaignInput,
): Promise<string> {
  const audienceId = await audienceOf(t.db, members);
  const made = await t.request({
    method: 'POST',
    url: '/v1/admin/email/campaigns',
    token: staff.token,
    payload: { name, template_key: templateKey, audience_id: audienceId, vars, ...extra },
  });
  expect(made.statusCode, made.body).toBe(201);
  return made.json().id as string;
}

/** The same campaign, launched over its route (its messages queued); its id. */
export async function launchedCampaign(
  t: Pick<TestApp, 'db' | 'request'>,
  staff: TestUser,
  input: CampaignInput,
): Promise<string> {
  const id = await draftCampaign(t, staff, input);
  const launched = await t.request({
    method: 'POST',
    url: `/v1/admin/email/campaigns/${id}/launch`,
    token: staff.token,
  });
  expect(launched.statusCode, launched.body).toBe(200);
  return id;
}
