import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_BYTES } from '../helpers/images.js';
import { signToken } from '../helpers/tokens.js';
import {
  type ConsoleService,
  pageProblems,
  screenshotBothSizes,
  seriousViolations,
  signInWithToken,
  staffWithRole,
  startConsoleService,
} from './harness.js';

/**
 * The console's support screens in Chromium, as the demo support agent, on the demo data: the
 * queue searched by a player's email, a ticket's thread with its files, reply (stored and mailed),
 * close and reopen, the link to the player, and compensation credits with the console's threshold.
 */

const SLOW = 180_000;
/** The default of CONSOLE_CREDIT_CONFIRM_ABOVE, which the test service keeps. */
const CONFIRM_ABOVE = 500;

interface DemoTicket {
  id: string;
  subject: string;
  userId: string;
  email: string;
  name: string;
}

describe('the staff console: Support', () => {
  let service: ConsoleService;
  let storageDir: string;
  let agentToken: string;
  let ownerToken: string;
  const taken = new Set<string>();

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'pa-console-support-'));
    service = await startConsoleService({ config: { storageDir } });
    agentToken = await service.tokenFor('demo-support-agent');
    ownerToken = await service.tokenFor('owner');
  }, SLOW);
  afterAll(async () => {
    await service?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  /** A seeded ticket no other case of this file uses, not closed, of a player with a name and an email. */
  async function freshTicket(): Promise<DemoTicket> {
    const rows = await service.t.db
      .selectFrom('support_tickets as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select(['t.id', 't.subject', 't.user_id', 'u.email', 'u.display_name'])
      .where('t.status', '!=', 'closed')
      .where('u.email', 'is not', null)
      .where('u.display_name', 'is not', null)
      .orderBy('t.created_at')
      .execute();
    const row = rows.find(
      (each) => !taken.has(each.id) && !rows.some((other) => other !== each && other.user_id === each.user_id),
    );
    if (row === undefined) throw new Error('the demo data has no untouched ticket left');
    taken.add(row.id);
    return {
      id: row.id,
      subject: row.subject,
      userId: row.user_id,
      email: row.email ?? '',
      name: row.display_name ?? '',
    };
  }

  const storedTicket = async (id: string) => {
    const response = await service.t.request({
      method: 'GET',
      url: `/v1/admin/support/tickets/${id}`,
      token: agentToken,
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  };

  const ledgerOf = async (userId: string) => {
    const response = await service.t.request({
      method: 'GET',
      url: `/v1/admin/billing/ledger?user_id=${userId}`,
      token: ownerToken,
    });
    expect(response.statusCode).toBe(200);
    return response.json().data as Array<{
      kind: string;
      amount: number;
      reason: string | null;
      balance_after: number;
    }>;
  };

  /** A support attachment as the player's client uploads it: the upload URL, then a PUT to it over HTTP. */
  async function uploadAsPlayer(token: string, contentType: string, bytes: Buffer): Promise<string> {
    const response = await service.t.request({
      method: 'POST',
      url: '/v1/me/support/attachments/upload-url',
      token,
      payload: { content_type: contentType, size: bytes.length },
    });
    expect(response.statusCode, response.body).toBe(200);
    const grant = response.json() as { key: string; upload_url: string; headers: Record<string, string> };
    const put = await fetch(grant.upload_url, { method: 'PUT', headers: grant.headers, body: bytes });
    expect(put.status).toBe(204);
    return grant.key;
  }

  async function openTicket(page: Page, ticket: DemoTicket) {
    await signInWithToken(page, service.origin, agentToken, `/admin/support/tickets/${ticket.id}`);
    await page.getByRole('heading', { name: ticket.subject, level: 1 }).waitFor();
  }

  it("finds a ticket by the player's email as one types; its row links to the ticket; user_id shows one player's", {
    timeout: 60_000,
  }, async () => {
    const ticket = await freshTicket();
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, agentToken, '/admin/support');
    await page.getByRole('heading', { name: 'Support', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual(['Home', 'Users', 'Support']);
    await page.getByRole('row').nth(2).waitFor();
    expect(await page.getByRole('row').count()).toBeGreaterThan(2);

    // Typed, not submitted: the list follows after a short pause.
    await page.getByLabel('Search player email or subject').pressSequentially(ticket.email.split('@')[0]!);
    await page.waitForURL(/[?&]q=/);
    const row = page.getByRole('row', { name: new RegExp(ticket.subject) });
    await row.waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(2);
    await row.getByText(ticket.name).waitFor();
    await row.getByText('Waiting on').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'support-queue');

    await row.getByRole('rowheader').click();
    await page.waitForURL(`**/admin/support/tickets/${ticket.id}`);
    await page.getByRole('heading', { name: ticket.subject, level: 1 }).waitFor();

    // The player page's way in: one player's tickets by user_id in the address.
    await page.goto(`${service.origin}/admin/support?user_id=${ticket.userId}`);
    await page.getByText(`Tickets of ${ticket.name}`).waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(2);
    await page.getByRole('button', { name: 'Show every player' }).click();
    await page.getByRole('row').nth(2).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('the queue shows a ticket a player opens while the agent watches, without a reload', {
    timeout: 60_000,
  }, async () => {
    const [player] = await service.players();
    const { page, context } = await service.window();
    await signInWithToken(page, service.origin, agentToken, '/admin/support');
    await page.getByRole('heading', { name: 'Support', level: 1 }).waitFor();
    await page.getByRole('row').nth(2).waitFor();
    const subject = `Stream stutters at 60 fps ${Date.now()}`;
    const opened = await service.t.request({
      method: 'POST',
      url: '/v1/me/support',
      token: await signToken({ sub: player!.id, email: player!.email }),
      payload: { subject, category: 'technical', message: 'Every evening since Tuesday.' },
    });
    expect(opened.statusCode, opened.body).toBe(201);
    // The agent's socket joins area:support (support.read, no audit.read): the event refreshes the queue.
    await page.getByRole('row', { name: new RegExp(subject) }).waitFor({ timeout: 10_000 });
    await context.close();
  });

  it("shows the thread with the player's file as a download link, and links to the player by name", async () => {
    const ticket = await freshTicket();
    const player = {
      id: ticket.userId,
      email: ticket.email,
      token: await signToken({ sub: ticket.userId, email: ticket.email }),
    };
    const key = await uploadAsPlayer(player.token, 'image/png', IMAGE_BYTES['image/png']);
    const added = await service.t.request({
      method: 'POST',
      url: `/v1/me/support/${ticket.id}/messages`,
      token: player.token,
      payload: { message: 'Here is a screenshot of the error.', attachment_keys: [key] },
    });
    expect(added.statusCode, added.body).toBe(200);
    const given = (await storedTicket(ticket.id)).messages.at(-1).attachments[0].url as string;

    const { page, context } = await service.window();
    await openTicket(page, ticket);
    await page.getByText('Here is a screenshot of the error.').waitFor();
    const file = page.getByRole('list', { name: 'Attachments' }).getByRole('link');
    await expect(file.textContent()).resolves.toContain(key.slice(key.lastIndexOf('/') + 1));
    // The URL the API gave, as it gave it (the console resolves it against its own origin).
    expect(new URL((await file.getAttribute('href')) ?? '', service.origin).href).toBe(
      new URL(given, service.origin).href,
    );
    const download = await fetch(new URL(given, service.origin));
    expect(download.status).toBe(200);

    const link = page.getByRole('link', { name: ticket.name, exact: true });
    await expect(link.getAttribute('href')).resolves.toBe(`/admin/users/${ticket.userId}`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBothSizes(page, 'support-ticket');

    await link.click();
    await page.waitForURL(`**/admin/users/${ticket.userId}`);
    await page.getByRole('heading', { name: ticket.name, level: 1 }).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('replies: the reply is stored as staff, the ticket waits on the player, and the mail is queued to them', async () => {
    const ticket = await freshTicket();
    const { page, context } = await service.window();
    await openTicket(page, ticket);
    const text = `We have reset your session. Try again tonight. (${ticket.id.slice(0, 4)})`;
    await page.getByRole('textbox', { name: 'Reply' }).fill(text);
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText(`Reply sent to ${ticket.email}`).waitFor();
    await page.locator('.message-staff').filter({ hasText: text }).getByText('You (staff)').waitFor();

    const stored = await storedTicket(ticket.id);
    expect(stored.status).toBe('answered');
    expect(stored.messages.at(-1)).toMatchObject({
      author: 'staff',
      author_id: staffWithRole('demo-support-agent').id,
      message: text,
    });
    const mail = await service.t.db
      .selectFrom('email_messages')
      .selectAll()
      .where('user_id', '=', ticket.userId)
      .where('subject', 'like', `Re: ${ticket.subject}%`)
      .executeTakeFirstOrThrow();
    expect(mail).toMatchObject({ to_email: ticket.email, category: 'transactional' });
    expect(JSON.stringify(mail)).toContain('We have reset your session.');
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it('closes with a reason, then reopens; the stored status follows each step', async () => {
    const ticket = await freshTicket();
    const { page, context } = await service.window();
    await openTicket(page, ticket);
    await page.getByRole('button', { name: 'Close…' }).click();
    const closing = page.getByRole('alertdialog');
    await closing.getByLabel('Reason').fill('Answered on the phone');
    expect(await seriousViolations(page)).toEqual([]);
    await closing.getByRole('button', { name: 'Close ticket' }).click();
    await page.getByText('Ticket closed').waitFor();
    await page.getByRole('button', { name: 'Reopen…' }).waitFor();
    await expect(page.getByRole('button', { name: 'Send reply' }).isDisabled()).resolves.toBe(true);
    expect(await storedTicket(ticket.id)).toMatchObject({
      status: 'closed',
      close_reason: 'Answered on the phone',
      closed_by: staffWithRole('demo-support-agent').id,
    });

    await page.getByRole('button', { name: 'Reopen…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Reopen' }).click();
    await page.getByText('Ticket reopened').waitFor();
    await page.getByRole('button', { name: 'Close…' }).waitFor();
    expect(await storedTicket(ticket.id)).toMatchObject({ status: 'open', closed_at: null, close_reason: null });
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });

  it(`grants compensation: up to ${CONFIRM_ABOVE} at once, above it after a confirmation naming amount and player`, {
    timeout: 60_000,
  }, async () => {
    const ticket = await freshTicket();
    const before = await ledgerOf(ticket.userId);
    const { page, context } = await service.window('phone');
    await openTicket(page, ticket);
    const form = page.getByRole('form', { name: 'Grant credits' });
    const reason = `Compensation for support ticket #${ticket.id.slice(0, 8).toUpperCase()}: ${ticket.subject}`;
    await expect(form.getByRole('textbox', { name: 'Reason' }).inputValue()).resolves.toBe(reason);
    await form.getByText(`More than ${CONFIRM_ABOVE} asks you to confirm.`).waitFor();

    // At the threshold: one submit, no question.
    await form.getByRole('spinbutton', { name: 'Credits' }).fill(String(CONFIRM_ABOVE));
    await form.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText(`${CONFIRM_ABOVE} credits granted to ${ticket.name}`).waitFor();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    const afterSmall = await ledgerOf(ticket.userId);
    expect(afterSmall).toHaveLength(before.length + 1);
    expect(afterSmall[0]).toMatchObject({ kind: 'grant', amount: CONFIRM_ABOVE, reason });

    // Above it: the question names the amount and the player, and nothing is granted until it is answered.
    await form.getByRole('spinbutton', { name: 'Credits' }).fill('750');
    await form.getByRole('button', { name: 'Grant credits' }).click();
    const question = page.getByRole('dialog', { name: `Grant 750 credits to ${ticket.name}?` });
    await question.waitFor();
    await question.getByText(`750 credits is more than ${CONFIRM_ABOVE}`).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await ledgerOf(ticket.userId)).toHaveLength(before.length + 1);
    await question.getByRole('button', { name: 'Grant 750 credits' }).click();
    await page.getByText(`750 credits granted to ${ticket.name}`).waitFor();
    await question.waitFor({ state: 'detached' });
    const afterLarge = await ledgerOf(ticket.userId);
    expect(afterLarge).toHaveLength(before.length + 2);
    expect(afterLarge[0]).toMatchObject({ kind: 'grant', amount: 750, reason });
    await page.getByText(`now holds ${CONFIRM_ABOVE + 750 + balanceOf(before)} credits`).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});

/** The balance after the newest entry of a ledger read newest first (0 with none). */
function balanceOf(ledger: Array<{ balance_after: number }>): number {
  return ledger[0]?.balance_after ?? 0;
}
