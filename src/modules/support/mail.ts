import type { LiteralContent } from '../email/delivery/index.js';
import { escapeHtml } from '../../lib/html.js';

/**
 * The two support mails, as literal content: there is no template to publish first, and the
 * text is ours. Everything a player or staff member wrote is HTML-escaped in the html part.
 */

/** Escaped, with the writer's line breaks kept. */
const paragraphs = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>\n');

/** Short enough to quote on the phone, unique enough among one player's tickets. */
export const ticketReference = (ticketId: string) => ticketId.slice(0, 8).toUpperCase();

export function confirmationMail(ticket: { id: string; subject: string }): LiteralContent {
  const reference = ticketReference(ticket.id);
  return {
    subject: `We received your request: ${ticket.subject} [#${reference}]`,
    text:
      `We received your support request "${ticket.subject}" (reference #${reference}).\n\nOur team will answer by ` +
      `email. You can follow the conversation in your account.\n`,
    html:
      `<p>We received your support request <strong>${escapeHtml(ticket.subject)}</strong> (reference ` +
      `#${reference}).</p>\n<p>Our team will answer by email. You can follow the conversation in your account.</p>`,
  };
}

export function replyMail(ticket: { id: string; subject: string }, reply: string): LiteralContent {
  const reference = ticketReference(ticket.id);
  return {
    subject: `Re: ${ticket.subject} [#${reference}]`,
    text:
      `Support answered your request "${ticket.subject}" (reference #${reference}):\n\n${reply}\n\nYou can answer ` +
      `in your account.\n`,
    html:
      `<p>Support answered your request <strong>${escapeHtml(ticket.subject)}</strong> (reference ` +
      `#${reference}):</p>\n<blockquote>${paragraphs(reply)}</blockquote>\n<p>You can answer in your account.</p>`,
  };
}
