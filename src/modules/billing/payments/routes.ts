import { actorOf } from '../../../kernel/auth.js';
import { idempotencyKeyHeaders, idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import {
  idParams,
  invoicesBody,
  listInvoicesQuery,
  listPaymentsQuery,
  paymentsBody,
  refundBody,
  refundResponse,
} from './schemas.js';
import { BillingPaymentsService } from './service.js';

const tags = ['billing'];
const read = { perms: ['billing.read'] } as const;
const write = { perms: ['billing.write'] } as const;
const FILTERS = '`user_id`, `status`, `created_from` (inclusive) and `created_to` (exclusive)';

export function registerBillingPaymentRoutes(app: ZodApp, deps: Deps<'db' | 'payments' | 'write'>): void {
  const service = new BillingPaymentsService(deps.db, deps.write, deps.payments);

  app.get(
    '/v1/admin/billing/payments',
    {
      config: read,
      schema: {
        operationId: 'listBillingPayments',
        tags,
        summary: 'List payments',
        description:
          `Money received: credit packs bought and subscription invoices paid. Paged with \`meta.total\`, newest ` +
          `first by default (\`sort=created_at|amount:asc|desc\`). Filters ${FILTERS}, \`kind\`, \`product_id\` and \`q\` ` +
          `(the payment's id or the provider's payment id, exactly, or part of the payer's email); ` +
          `all combine. Amounts in minor units.`,
        querystring: listPaymentsQuery,
        response: { 200: paymentsBody },
      },
    },
    (request) => service.listPayments(request.query),
  );

  app.get(
    '/v1/admin/billing/invoices',
    {
      config: read,
      schema: {
        operationId: 'listBillingInvoices',
        tags,
        summary: 'List invoices',
        description:
          `Subscription invoices as the payment provider last reported them. Paged with \`meta.total\`, newest ` +
          `first by default (\`sort=created_at|amount_due:asc|desc\`). Filters ${FILTERS}; all combine. Amounts in ` +
          `minor units.`,
        querystring: listInvoicesQuery,
        response: { 200: invoicesBody },
      },
    },
    (request) => service.listInvoices(request.query),
  );

  app.post(
    '/v1/admin/billing/payments/:id/refund',
    {
      config: {
        ...write,
        errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request', 'invalid_state'] },
      },
      schema: {
        operationId: 'refundBillingPayment',
        tags,
        summary: 'Refund a payment',
        description:
          'Refunds `amount` minor units (omitted: all that is left) at the payment provider, then records the ' +
          "refund, adds it to the payment's `amount_refunded` (status `partially_refunded` or `refunded`) and, " +
          'for a credit pack, takes back the refunded share of its credits (rounded down) from what is left of ' +
          'the pack; credits already spent are the `shortfall`. With an `Idempotency-Key` header a repeat with ' +
          'the same body answers the first refund (header `idempotent-replayed: true`) and refunds nothing more, ' +
          'whatever happened in between; the same key with another body is 409 `conflict`. Without one, a retry ' +
          "after a failure still does not refund twice (the provider's idempotency key names the payment, the " +
          'total refunded so far and the amount). A refund the provider reports on its own (made in its ' +
          'dashboard, or a request whose write was lost) is recorded from its event the same way, once. 404 ' +
          '`not_found`; 422 `invalid_request` when `amount` is more than is left (`details.refundable`); 422 ' +
          '`invalid_state` when the payment is fully refunded; 422 `invalid_request` when the provider refuses ' +
          '(`details.provider_code`); 503 `unavailable` when it cannot be reached. Refusals store nothing. ' +
          'Answers 200 with the refund. Audited (`billing.payment.refund`).',
        params: idParams,
        headers: idempotencyKeyHeaders('refund', 'refunds nothing more'),
        body: refundBody,
        response: { 200: refundResponse },
      },
    },
    async (request, reply) => {
      const refunded = await service.refund(
        actorOf(request),
        request.params.id,
        request.body,
        request.headers['idempotency-key'],
      );
      return idempotentAnswer(reply, refunded);
    },
  );
}
