import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import type { HtmlPage, LocalCheckoutPages } from './local-pages.js';
import {
  cancelLocalCheckout,
  getLocalBillingObject,
  getLocalBillingPortalPage,
  getLocalCheckoutPage,
  payLocalCheckout,
} from './route-options.js';

const sendPage = (reply: FastifyReply, page: HtmlPage) =>
  reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', page.policy)
    .send(page.html);

/**
 * The local provider's checkout and portal pages, and staff's look at its objects: paying or
 * cancelling answers 303 to the checkout's success or cancel URL.
 */
export function registerLocalCheckoutPages(app: ZodApp, pages: LocalCheckoutPages): void {
  const checkoutPath = '/v1/public/billing/local/checkout/:id';

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // The page's buttons post empty HTML forms; their bodies carry nothing the routes read.
    plain.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, _body, done) => done(null, undefined),
    );

    scope.get(checkoutPath, getLocalCheckoutPage, async (request, reply) =>
      sendPage(reply, await pages.checkoutPage(request.params.id)),
    );

    scope.post(`${checkoutPath}/pay`, payLocalCheckout, async (request, reply) =>
      reply.redirect(await pages.settle(request.params.id, 'pay'), 303),
    );

    scope.post(`${checkoutPath}/cancel`, cancelLocalCheckout, async (request, reply) =>
      reply.redirect(await pages.settle(request.params.id, 'cancel'), 303),
    );

    scope.get('/v1/public/billing/local/portal', getLocalBillingPortalPage, async (request, reply) =>
      sendPage(reply, pages.portalPage(request.query.return_url)),
    );
  });

  app.get('/v1/admin/billing/local/dashboard/:type/:id', getLocalBillingObject, (request) =>
    pages.dashboardObject(request.params.type, request.params.id),
  );
}
