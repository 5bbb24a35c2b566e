import type { FastifyReply } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import { answersInJson } from './answer-kind.js';
import { confirmPage, donePage, invalidLinkPage, maskedAddress, PAGE_HEADERS } from './pages.js';
import type { SuppressionsService } from './service.js';

// What the unsubscribe link answers: JSON to an API client, a page to a browser or a mail provider.

/** The link's token travels in the URL: no answer is cached or sends it on as a referrer. */
const JSON_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
const invalidLink = () => new AppError(400, 'invalid_link');

type LinkRequest = {
  query: { token?: string | undefined };
  headers: { accept?: string | undefined; 'content-type'?: string | undefined };
};

/** GET: the masked address the link would unsubscribe, or the page asking to confirm it. */
export function confirmAnswer(suppressions: SuppressionsService, request: LinkRequest, reply: FastifyReply) {
  const claims = suppressions.readToken(request.query.token);
  if (answersInJson(request.headers)) {
    reply.headers(JSON_HEADERS);
    if (claims === undefined) throw invalidLink();
    return { email: maskedAddress(claims.email) };
  }
  reply.headers(PAGE_HEADERS);
  if (claims === undefined) return reply.code(400).send(invalidLinkPage());
  return reply.send(confirmPage(claims.email, request.query.token!));
}

/** POST (a one-click post or the page's button): unsubscribes the link's address. */
export async function unsubscribeAnswer(
  suppressions: SuppressionsService,
  request: LinkRequest & { body?: { 'List-Unsubscribe'?: string | undefined } | null | undefined },
  reply: FastifyReply,
) {
  const claims = suppressions.readToken(request.query.token);
  const inJson = answersInJson(request.headers);
  reply.headers(inJson ? JSON_HEADERS : PAGE_HEADERS);
  if (claims === undefined) {
    if (inJson) throw invalidLink();
    return reply.code(400).send(invalidLinkPage());
  }
  await suppressions.unsubscribe(claims, request.body?.['List-Unsubscribe'] === 'One-Click' ? 'one_click' : 'link');
  if (inJson) return { email: maskedAddress(claims.email), unsubscribed: true as const };
  return reply.send(donePage(claims.email));
}
