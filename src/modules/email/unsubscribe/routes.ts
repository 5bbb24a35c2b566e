import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { parseFormBody } from './form-body.js';
import { confirmAnswer, unsubscribeAnswer } from './link-answers.js';
import { SuppressionsService } from './service.js';
import {
  createEmailSuppression,
  deleteEmailSuppression,
  getEmailUnsubscribePage,
  listEmailSuppressions,
  unsubscribeEmail,
} from './route-options.js';

const UNSUBSCRIBE = '/v1/public/email/unsubscribe';
const SUPPRESSIONS = '/v1/admin/email/suppressions';
/** A form post is a few bytes; anything bigger is not a browser or a mail provider. */
const FORM_BODY_LIMIT_BYTES = 4_096;

/** The link in every campaign and broadcast mail (RFC 8058 one-click too). */
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

    scope.get(UNSUBSCRIBE, getEmailUnsubscribePage, (request, reply) => confirmAnswer(suppressions, request, reply));
    scope.post(UNSUBSCRIBE, unsubscribeEmail, (request, reply) => unsubscribeAnswer(suppressions, request, reply));
  });
}

/** Staff's suppression list: addresses no campaign or broadcast mails. */
export function registerEmailSuppressionRoutes(app: ZodApp, deps: Deps<'db' | 'signingKey' | 'write'>): void {
  const suppressions = new SuppressionsService(deps.db, deps.write, () => deps.signingKey);

  app.get(SUPPRESSIONS, listEmailSuppressions, (request) => suppressions.list(request.query));

  app.post(SUPPRESSIONS, createEmailSuppression, async (request, reply) => {
    const { suppression, created } = await suppressions.add(actorOf(request), request.body);
    return reply.code(created ? 201 : 200).send(suppression);
  });

  app.delete(`${SUPPRESSIONS}/:email`, deleteEmailSuppression, async (request, reply) => {
    await suppressions.remove(actorOf(request), request.params.email, request.query.reason);
    return reply.code(204).send(null);
  });
}
