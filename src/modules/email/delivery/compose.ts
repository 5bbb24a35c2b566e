import type { MailMessage } from '../../../adapters/mail/index.js';
import { publicBaseUrlOf } from '../../../config.js';
import type { Deps } from '../../../composition/platform.js';
import { renderTemplate, renderText, type TemplateParts } from '../render.js';
import type { EmailCategory } from '../tables.js';
import { signUnsubscribeToken, unsubscribeUrl, WITHHELD_TOKEN } from '../unsubscribe-token.js';

/**
 * A queued row made into the message the transport gets. The dispatcher composes it when it
 * sends and the outbox route when staff read it: the same code, so what staff see is exactly
 * what went (or will go) out, except the unsubscribe link's token, which staff reads withhold.
 */

/** What composing needs besides the row: settings that are the same for every message. */
export interface ComposeContext {
  from: string;
  publicBaseUrl: string;
  unsubscribeMailto: string | undefined;
  tokenKey: string;
  /** For staff reads: unsubscribe links carry WITHHELD_TOKEN instead of a signed one. */
  withholdTokens?: boolean;
}

/** The parts of an email_messages row composing reads. */
export interface ComposableMessage {
  id: string;
  to_email: string;
  category: EmailCategory;
  vars: unknown;
  subject: string | null;
  html: string | null;
  text: string | null;
}

export function composeContext(deps: Deps<'config' | 'signingKey'>): ComposeContext {
  return {
    from: deps.config.mailFrom,
    publicBaseUrl: publicBaseUrlOf(deps.config),
    unsubscribeMailto: deps.config.mailUnsubscribeMailto,
    tokenKey: deps.signingKey,
  };
}

function unsubscribeLink(context: ComposeContext, message: ComposableMessage): string {
  if (context.withholdTokens === true) return unsubscribeUrl(context.publicBaseUrl, WITHHELD_TOKEN);
  return unsubscribeUrl(
    context.publicBaseUrl,
    signUnsubscribeToken(context.tokenKey, { email: message.to_email, messageId: message.id }),
  );
}

/**
 * The row's vars plus the system's: `email` and `unsubscribe_url`. The system's win, so a
 * caller's vars can never point the unsubscribe link elsewhere.
 */
function varsOf(context: ComposeContext, message: ComposableMessage): Record<string, unknown> {
  const vars =
    message.vars !== null && typeof message.vars === 'object' && !Array.isArray(message.vars)
      ? (message.vars as Record<string, unknown>)
      : {};
  return { ...vars, email: message.to_email, unsubscribe_url: unsubscribeLink(context, message) };
}

/** The literal content, or the template version rendered with the message's vars. */
export function contentOf(
  context: ComposeContext,
  message: ComposableMessage,
  version: TemplateParts | undefined,
): TemplateParts {
  if (version === undefined)
    return { subject: message.subject ?? '', html: message.html ?? '', text: message.text ?? '' };
  return renderTemplate(version, varsOf(context, message));
}

/** Only the subject (list views): the cheap part of contentOf. */
export function subjectOf(context: ComposeContext, message: ComposableMessage, versionSubject: string | null): string {
  if (versionSubject === null) return message.subject ?? '';
  return renderText(versionSubject, varsOf(context, message), 'subject');
}

/** `<id@host>`: the same on every attempt, so a receiver can tell a retry from a new message. */
export function messageIdOf(context: ComposeContext, id: string): string {
  return `<${id}@${new URL(context.publicBaseUrl).hostname}>`;
}

/**
 * Marketing mail carries List-Unsubscribe (RFC 2369: the one-click URL, plus a mailto when one
 * is configured) and List-Unsubscribe-Post (RFC 8058), so mail providers show an unsubscribe
 * button that POSTs to us without a confirmation page. Transactional mail carries neither.
 */
export function extraHeadersOf(context: ComposeContext, message: ComposableMessage): Record<string, string> {
  if (message.category !== 'marketing') return {};
  const targets = [`<${unsubscribeLink(context, message)}>`];
  if (context.unsubscribeMailto !== undefined)
    targets.push(`<mailto:${context.unsubscribeMailto}?subject=unsubscribe>`);
  return { 'List-Unsubscribe': targets.join(', '), 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

export function composeMessage(
  context: ComposeContext,
  message: ComposableMessage,
  version: TemplateParts | undefined,
): MailMessage {
  return {
    from: context.from,
    to: message.to_email,
    ...contentOf(context, message, version),
    headers: extraHeadersOf(context, message),
    messageId: messageIdOf(context, message.id),
  };
}
