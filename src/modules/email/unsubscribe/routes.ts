import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../../kernel/auth.js';
import { AppError } from '../../../kernel/errors.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { parseFormBody } from './form-body.js';
import { answersInJson } from './answer-kind.js';
import { confirmPage, donePage, invalidLinkPage, maskedAddress, PAGE_HEADERS } from './pages.js';
import {
  addSuppressionBody,
  invalidLinkAnswer,
  invalidLinkPageAnswer,
  linkAnswer,
  listSuppressionsQuery,
  removeSuppressionQuery,
  suppressionParams,
  suppressionsPage,
  suppressionView,
  unsubscribeBody,
  unsubscribedAnswer,
  unsubscribeQuery,
} from './schemas.js';
import { SuppressionsService } from './service.js';

const tags = ['email'];
const UNSUBSCRIBE = '/v1/public/email/unsubscribe';
const SUPPRESSIONS = '/v1/admin/email/suppressions';
/** A form post is a few bytes; anything bigger is not a browser or a mail provider. */
const FORM_BODY_LIMIT_BYTES = 4_096;
/** The link's token travels in the URL: no answer is cached or sends it on as a referrer. */
const JSON_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
const invalidLink = () => new AppError(400, 'invalid_link');

export function registerEmailUnsubscribeRoutes(app: ZodApp, deps: Deps<'db' | 'signingKey' | 'write'>): void {
  const suppressions = new SuppressionsService(deps.db, deps.write, () => deps.signingKey);

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // Form bodies exist only here: RFC 8058 allows either encoding, and the page's button posts a form.
    plain.addContentTypeParser(
      ['application/x-www-form-urlencoded', 'multipart/form-data'],
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
      (request, body, done) => done(null, parseFormBody(String(request.headers['content-type']), body as string)),
    );

    scope.get(
      UNSUBSCRIBE,
      {
        config: { rateLimit: 'unsubscribe' },
        schema: {
          tags,
          operationId: 'getEmailUnsubscribePage',
          summary: 'Unsubscribe page (the link in every marketing mail)',
          description:
            'The HTML page an unsubscribe link opens: the address (masked) and a button that posts here. A GET never ' +
            'unsubscribes; API clients get JSON. In depth: ' +
            '[docs/api/email.md](docs/api/email.md#unsubscribe-page-the-link-in-every-marketing-mail).',
          querystring: unsubscribeQuery,
          response: { 200: linkAnswer, 400: invalidLinkPageAnswer },
        },
      },
      async (request, reply) => {
        const claims = suppressions.readToken(request.query.token);
        if (answersInJson(request.headers)) {
          reply.headers(JSON_HEADERS);
          if (claims === undefined) throw invalidLink();
          return { email: maskedAddress(claims.email) };
        }
        reply.headers(PAGE_HEADERS);
        if (claims === undefined) return reply.code(400).send(invalidLinkPage());
        return reply.send(confirmPage(claims.email, request.query.token!));
      },
    );

    scope.post(
      UNSUBSCRIBE,
      {
        config: { rateLimit: 'unsubscribe' },
        schema: {
          tags,
          operationId: 'unsubscribeEmail',
          summary: "Unsubscribe (RFC 8058 one-click, and the page's button)",
          description:
            "Puts the link token's address on the suppression list for marketing mail, at once and idempotently (a " +
            "one-click POST or the page's button). API clients get JSON. In depth: " +
            '[docs/api/email.md](docs/api/email.md#unsubscribe-rfc-8058-one-click-and-the-pages-button).',
          querystring: unsubscribeQuery,
          body: unsubscribeBody,
          consumes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
          response: { 200: unsubscribedAnswer, 400: invalidLinkAnswer },
        },
      },
      async (request, reply) => {
        const claims = suppressions.readToken(request.query.token);
        const inJson = answersInJson(request.headers);
        reply.headers(inJson ? JSON_HEADERS : PAGE_HEADERS);
        if (claims === undefined) {
          if (inJson) throw invalidLink();
          return reply.code(400).send(invalidLinkPage());
        }
        await suppressions.unsubscribe(
          claims,
          request.body?.['List-Unsubscribe'] === 'One-Click' ? 'one_click' : 'link',
        );
        if (inJson) return { email: maskedAddress(claims.email), unsubscribed: true as const };
        return reply.send(donePage(claims.email));
      },
    );
  });

  app.get(
    SUPPRESSIONS,
    {
      config: { perms: ['email.read'] },
      schema: {
        operationId: 'listEmailSuppressions',
        tags,
        summary: 'List suppressed addresses',
        description:
          'Addresses that get no marketing mail. Paged with `meta.total`, newest first by default ' +
          '(`sort=created_at|email:asc|desc`). `q` matches the address (case-insensitive); `reason` filters.',
        querystring: listSuppressionsQuery,
        response: { 200: suppressionsPage },
      },
    },
    (request) => suppressions.list(request.query),
  );

  app.post(
    SUPPRESSIONS,
    {
      config: { perms: ['email.write'] },
      schema: {
        operationId: 'createEmailSuppression',
        tags,
        summary: 'Suppress an address',
        description:
          'Stops marketing mail to `email` (stored lowercased) with `reason` `manual` (default), `bounced` or ' +
          '`complained`, source `staff`. Answers 201 with the row and audits (`email.suppression.add`, `note` as ' +
          'its reason); an address already suppressed answers 200 with the row as it was (its first reason stays) ' +
          'and changes nothing.',
        body: addSuppressionBody,
        response: { 200: suppressionView, 201: suppressionView },
      },
    },
    async (request, reply) => {
      const { suppression, created } = await suppressions.add(actorOf(request), request.body);
      return reply.code(created ? 201 : 200).send(suppression);
    },
  );

  app.delete(
    `${SUPPRESSIONS}/:email`,
    {
      config: { perms: ['email.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'deleteEmailSuppression',
        tags,
        summary: 'Remove an address from the suppression list',
        description:
          'Marketing mail may go to the address again (any case; URL-encode it). 404 `not_found` when it is not ' +
          'suppressed. Audited (`email.suppression.remove`) with the row removed and the optional `reason`. Take ' +
          'care with `unsubscribed`: the person asked for no mail.',
        params: suppressionParams,
        querystring: removeSuppressionQuery,
        response: { 204: z.null().describe('Done') },
      },
    },
    async (request, reply) => {
      await suppressions.remove(actorOf(request), request.params.email, request.query.reason);
      return reply.code(204).send(null);
    },
  );
}
