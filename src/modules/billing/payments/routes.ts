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
          'Refunds `amount` minor units (omitted: all that is left) at the payment provider, records it and takes ' +
          "back a credit pack's share of credits. Idempotent with an `Idempotency-Key` header, and never refunds " +
          'twice on a retry. In depth: [docs/api/billing.md](docs/api/billing.md#refund-a-payment).',
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
