// Generated from openapi.json by scripts/sdk-sources.ts (`npm run openapi`): do not edit.

/** Operations that take no token (`security: []`): the client asks its token provider nothing for them. */
export const OPEN_OPERATIONS: ReadonlySet<string> = new Set([
  'GET /health',
  'GET /health/live',
  'GET /health/ready',
  'GET /v1/public/products',
  'GET /v1/public/store/games',
  'GET /v1/public/store/games/{slug}',
  'GET /v1/public/site/pages/{slug}',
  'GET /v1/public/site',
  'POST /v1/public/waitlist',
  'GET /v1/public/storage/download',
  'GET /v1/console/config',
  'POST /v1/console/sign-in',
  'POST /v1/webhooks/stripe',
  'GET /v1/public/billing/local/checkout/{id}',
  'POST /v1/public/billing/local/checkout/{id}/pay',
  'POST /v1/public/billing/local/checkout/{id}/cancel',
  'GET /v1/public/billing/local/portal',
  'GET /v1/public/email/unsubscribe',
  'POST /v1/public/email/unsubscribe',
  'GET /v1/realtime',
  'PUT /v1/public/storage/upload',
  'POST /v1/public/device/code',
  'POST /v1/public/device/token',
]);

/** Operations that accept an `Idempotency-Key` header: the client makes one when the caller gives none. */
export const IDEMPOTENCY_KEY_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /v1/admin/billing/credits/grant',
  'POST /v1/admin/billing/credits/gift-pack',
  'POST /v1/me/billing/checkout-session',
  'POST /v1/admin/billing/payments/{id}/refund',
  'POST /v1/admin/email/campaigns/{id}/launch',
  'POST /v1/admin/notifications/broadcast',
]);
