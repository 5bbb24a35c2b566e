import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';

/**
 * Campaign administration (operation 11 and the routes around it): create, list, get, edit,
 * schedule, unschedule, cancel, with every refusal leaving things as they were. Sending (launch,
 * pause, resume) is in sending.test.ts.
 */

let t: TestApp;
let staff: TestUser;
let reader: TestUser;
let audienceId: string;

async function template(key: string, published: boolean) {
  const row = await t.db
    .insertInto('email_templates')
    .values({ key, name: key, description: null, category: 'marketing', created_by: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('email_template_versions')
    .values({
      template_id: row.id,
      version: 1,
      subject: 'Hello {{display_name}}',
      html: '<p>{{offer}}</p>',
      text: '{{offer}}',
      note: null,
      created_by: null,
    })
    .execute();
  if (published)
    await t.db
      .updateTable('email_templates')
      .set({ published_version: 1, published_at: new Date() })
      .where('id', '=', row.id)
      .execute();
  return row.id;
}

async function audience(emails: string[]): Promise<string> {
  const row = await t.db
    .insertInto('email_audiences')
    .values({ name: `Audience ${randomUUID().slice(0, 6)}`, description: null, created_by: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (emails.length > 0)
    await t.db
      .insertInto('email_audience_members')
      .values(emails.map((email) => ({ audience_id: row.id, email, user_id: null })))
      .execute();
  return row.id;
}

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['email.read', 'email.write', 'email.send']);
  reader = await createUser(t.db, ['email.read']);
  await template('spring-sale', true);
  await template('unpublished-one', false);
  audienceId = await audience(['a@example.test', 'b@example.test']);
});
afterAll(async () => {
  await t.close();
});

const create = (payload: unknown, user: TestUser | null = staff) =>
  t.request({ method: 'POST', url: '/v1/admin/email/campaigns', token: user?.token, payload: payload as object });
const campaignRows = () => t.db.selectFrom('email_campaigns').select(['id', 'status']).orderBy('created_at').execute();
const post = (path: string, payload?: object, user: TestUser = staff) =>
  t.request({
    method: 'POST',
    url: `/v1/admin/email/campaigns/${path}`,
    token: user.token,
    ...(payload ? { payload } : {}),
  });

async function draft(extra: object = {}): Promise<string> {
  const response = await create({ name: 'Spring', template_key: 'spring-sale', audience_id: audienceId, ...extra });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

describe('POST /v1/admin/email/campaigns (operation 11)', () => {
  it('201 { id }: a draft with the template, audience and vars; nothing queued; audited', async () => {
    const response = await create({
      name: 'Spring sale',
      template_key: 'spring-sale',
      audience_id: audienceId,
      vars: { offer: '20% off' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.any(String) });
    const got = await t.request({ method: 'GET', url: `/v1/admin/email/campaigns/${id}`, token: reader.token });
    expect(got.json()).toMatchObject({
      id,
      name: 'Spring sale',
      template_key: 'spring-sale',
      template_version: null,
      audience_id: audienceId,
      vars: { offer: '20% off' },
      status: 'draft',
      max_consecutive_failures: 10,
      recipients: null,
      counts: { queued: 0, held: 0, sending: 0, sent: 0, failed: 0, skipped: 0, cancelled: 0 },
      created_by: staff.id,
    });
    expect(await t.db.selectFrom('email_messages').select('id').where('campaign_id', '=', id).execute()).toEqual([]);
    expect(await auditOf(t.db, requestIdOf(response))).toMatchObject([
      { action: 'email.campaign.create', target_type: 'email_campaign', target_id: id, actor_id: staff.id },
    ]);
    // No audience yet is allowed for a draft.
    expect((await create({ name: 'Later', template_key: 'spring-sale' })).statusCode).toBe(201);
  });

  it('404 not_found for an unknown template or audience, 422 invalid_state for an unpublished template; nothing stored', async () => {
    const before = await campaignRows();
    const cases: [object, number, unknown][] = [
      [
        { name: 'x', template_key: 'no-such-one' },
        404,
        { error: 'not_found', details: { template_key: 'no-such-one' } },
      ],
      [
        { name: 'x', template_key: 'spring-sale', audience_id: randomUUID() },
        404,
        { error: 'not_found', details: { audience_id: expect.any(String) } },
      ],
      [
        { name: 'x', template_key: 'unpublished-one' },
        422,
        { error: 'invalid_state', details: { reason: expect.any(String), template_key: 'unpublished-one' } },
      ],
    ];
    for (const [payload, status, body] of cases) {
      const response = await create(payload);
      expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
    }
    expect(await campaignRows()).toEqual(before);
  });

  it.each([
    ['no name', { template_key: 'spring-sale' }, 'name'],
    ['a name over 200', { name: 'x'.repeat(201), template_key: 'spring-sale' }, 'name'],
    ['a bad template_key', { name: 'x', template_key: 'Spring Sale' }, 'template_key'],
    ['a one-letter template_key', { name: 'x', template_key: 's' }, 'template_key'],
    ['a bad audience_id', { name: 'x', template_key: 'spring-sale', audience_id: 'nope' }, 'audience_id'],
    ['vars not an object', { name: 'x', template_key: 'spring-sale', vars: 'x' }, 'vars'],
    ['an unknown field', { name: 'x', template_key: 'spring-sale', status: 'sending' }, undefined],
  ])('400 for %s', async (_name, payload, field) => {
    const before = await campaignRows();
    const response = await create(payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    if (field !== undefined) expect(response.json().error.issues[0].path).toEqual([field]);
    expect(await campaignRows()).toEqual(before);
  });

  it('401 without a token; 403 with only email.read', async () => {
    expect((await create({ name: 'x', template_key: 'spring-sale' }, null)).json()).toEqual({ error: 'missing_token' });
    expect((await create({ name: 'x', template_key: 'spring-sale' }, reader)).json()).toEqual({
      error: 'forbidden',
      details: { perm: 'email.write' },
    });
  });
});

describe('list, get, edit', () => {
  it('lists with filters and total; gets one; 404 for another id', async () => {
    const id = await draft({ name: 'Findable campaign' });
    const list = await t.request({
      method: 'GET',
      url: '/v1/admin/email/campaigns?q=findable&status=draft',
      token: reader.token,
    });
    expect(list.json()).toMatchObject({
      data: [{ id, name: 'Findable campaign', audience_name: expect.any(String) }],
      meta: { page: 1, per_page: 25, total: 1 },
    });
    expect(
      (
        await t.request({ method: 'GET', url: `/v1/admin/email/campaigns/${randomUUID()}`, token: reader.token })
      ).json(),
    ).toEqual({ error: 'not_found' });
    expect(
      (await t.request({ method: 'GET', url: '/v1/admin/email/campaigns?status=lost', token: reader.token }))
        .statusCode,
    ).toBe(400);
  });

  it('edits a draft (audited); refuses once launched (422) and unknown references (404)', async () => {
    const id = await draft();
    const edited = await t.request({
      method: 'PATCH',
      url: `/v1/admin/email/campaigns/${id}`,
      token: staff.token,
      payload: { name: 'Renamed', vars: { offer: 'free' }, max_consecutive_failures: 3 },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'Renamed', vars: { offer: 'free' }, max_consecutive_failures: 3 });
    expect(await auditOf(t.db, requestIdOf(edited))).toMatchObject([
      { action: 'email.campaign.update', target_id: id },
    ]);
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: `/v1/admin/email/campaigns/${id}`,
          token: staff.token,
          payload: { audience_id: randomUUID() },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'PATCH', url: `/v1/admin/email/campaigns/${id}`, token: staff.token, payload: {} }))
        .statusCode,
    ).toBe(400);
    expect((await post(`${id}/launch`)).statusCode).toBe(200);
    const late = await t.request({
      method: 'PATCH',
      url: `/v1/admin/email/campaigns/${id}`,
      token: staff.token,
      payload: { name: 'Too late' },
    });
    expect({ status: late.statusCode, body: late.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_state', details: { reason: expect.any(String), status: 'sending' } },
    });
  });
});

describe('schedule, unschedule, cancel', () => {
  it('schedules in the future (checked launchable), unschedules back to draft; refuses the past, a year out, and what cannot launch', async () => {
    const id = await draft();
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await post(`${id}/schedule`, { at });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    expect(scheduled.json()).toMatchObject({ status: 'scheduled', scheduled_at: at });
    expect(await auditOf(t.db, requestIdOf(scheduled))).toMatchObject([
      {
        action: 'email.campaign.schedule',
        summary: { before: { status: 'draft' }, after: { status: 'scheduled' }, scheduled_at: at },
      },
    ]);
    for (const bad of [
      new Date(Date.now() - 1000).toISOString(),
      new Date(Date.now() + 400 * 86_400_000).toISOString(),
    ]) {
      const response = await post(`${id}/schedule`, { at: bad });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 422,
        body: { error: 'invalid_request', details: { field: 'at', reason: expect.any(String) } },
      });
    }
    expect((await post(`${id}/unschedule`)).json()).toMatchObject({ status: 'draft', scheduled_at: null });
    expect((await post(`${id}/unschedule`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'draft' },
    });

    const homeless = (await create({ name: 'No audience', template_key: 'spring-sale' })).json().id;
    expect((await post(`${homeless}/schedule`, { at })).json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'the campaign has no audience' },
    });
    expect(
      (await t.db.selectFrom('email_campaigns').select('status').where('id', '=', homeless).executeTakeFirstOrThrow())
        .status,
    ).toBe('draft');
  });

  it('cancels a draft or a sending campaign (dropping its queued mail); 422 for a cancelled one; 404 unknown', async () => {
    const id = await draft();
    expect((await post(`${id}/launch`)).json()).toMatchObject({
      status: 'sending',
      recipients: 2,
      counts: { queued: 2 },
    });
    const cancelled = await post(`${id}/cancel`, { reason: 'Wrong offer' });
    expect(cancelled.json()).toMatchObject({
      status: 'cancelled',
      status_reason: 'Wrong offer',
      counts: { queued: 0, cancelled: 2 },
    });
    expect(await auditOf(t.db, requestIdOf(cancelled))).toMatchObject([
      { action: 'email.campaign.cancel', reason: 'Wrong offer', summary: { cancelled: 2 } },
    ]);
    expect((await post(`${id}/cancel`)).json()).toEqual({
      error: 'invalid_state',
      details: { reason: expect.any(String), status: 'cancelled' },
    });
    expect((await post(`${randomUUID()}/cancel`)).json()).toEqual({ error: 'not_found' });
    expect((await post(`${await draft()}/cancel`)).json()).toMatchObject({
      status: 'cancelled',
      status_reason: 'cancelled by staff',
    });
  });

  it('every sending route needs email.send', async () => {
    const id = await draft();
    for (const path of ['launch', 'schedule', 'unschedule', 'pause', 'resume', 'cancel']) {
      const response = await post(
        `${id}/${path}`,
        path === 'schedule' ? { at: new Date(Date.now() + 60_000).toISOString() } : undefined,
        reader,
      );
      expect(response.json()).toEqual({ error: 'forbidden', details: { perm: 'email.send' } });
    }
    expect(
      (await t.db.selectFrom('email_campaigns').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status,
    ).toBe('draft');
  });
});

describe('operation 9 while a campaign is under way', () => {
  it('422 invalid_state replacing the members of an audience a campaign is sending or paused to; the list stays; fine once it ends', async () => {
    const members = ['x1@example.test', 'x2@example.test'];
    const target = await audience(members);
    const id = (await create({ name: 'Busy', template_key: 'spring-sale', audience_id: target })).json().id;
    expect((await post(`${id}/launch`)).statusCode).toBe(200);
    const replace = () =>
      t.request({
        method: 'PUT',
        url: `/v1/admin/email/audiences/${target}/members`,
        token: staff.token,
        payload: { members: ['new@example.test'] },
      });
    const listed = async () =>
      (
        await t.db
          .selectFrom('email_audience_members')
          .select('email')
          .where('audience_id', '=', target)
          .orderBy('email')
          .execute()
      ).map((row) => row.email);
    for (const step of ['sending', 'paused']) {
      if (step === 'paused') expect((await post(`${id}/pause`)).statusCode).toBe(200);
      const refused = await replace();
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 422,
        body: {
          error: 'invalid_state',
          details: { reason: expect.any(String), campaign_id: id, campaign_status: step },
        },
      });
      expect(await listed()).toEqual(members);
    }
    expect((await post(`${id}/cancel`)).statusCode).toBe(200);
    expect((await replace()).json()).toEqual({ count: 1 });
    expect(await listed()).toEqual(['new@example.test']);
  });
});
