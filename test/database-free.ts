/**
 * Test files that read and write no database: they test the same thing on either run, so the
 * PostgreSQL run (TEST_DATABASE_URL) leaves them to the embedded one (vitest.config.ts). Held to it
 * by test/database-free.test.ts: a file here that reaches a database helper fails that test.
 * Directories end in a slash.
 */
export const DATABASE_FREE_TESTS = [
  'test/lib/canonical-json.test.ts',
  'test/lib/html.test.ts',
  'test/lib/instant.test.ts',
  'test/lib/iso-text.test.ts',
  'test/lib/response-serializer-verify.test.ts',
  'test/lib/unchanging-answers.test.ts',
  'test/lib/response-shaper.test.ts',
  'test/lib/split-pool.test.ts',
  'test/lib/sql-errors.test.ts',
  'test/lib/url-field.test.ts',
  'test/lib/zod-introspection.test.ts',
  'test/bench/',
  'test/runtime-sim/',
  'test/scripts/',
  'test/adapters/mail-smtp.test.ts',
  'test/adapters/payments-local.test.ts',
  'test/adapters/payments-stripe.test.ts',
  'test/adapters/runtime-http.test.ts',
  'test/adapters/storage-local.test.ts',
  'test/adapters/storage-s3.test.ts',
  'test/cli/config-check.test.ts',
  'test/cli/heap-policy.test.ts',
  'test/kernel/http/request-log.test.ts',
  'test/cli/progress.test.ts',
  'test/cli/runtime-sim.test.ts',
  'test/kernel/areas/area-modules.test.ts',
  'test/kernel/audit-pictures.test.ts',
  'test/kernel/openapi-descriptions.test.ts',
  'test/kernel/openapi-examples.test.ts',
  // The service in a process of its own on the embedded database, on either run.
  'test/kernel/tracing/serve-traced.test.ts',
  'test/reliability/shutdown.test.ts',
  'test/reliability/sigterm-background-work.test.ts',
  'test/modules/console/admin-coverage.test.ts',
  'test/modules/email/audiences/csv.test.ts',
  'test/modules/email/audiences/email-address.test.ts',
  'test/modules/email/render.test.ts',
  'test/modules/email/unsubscribe-token.test.ts',
  'test/sdk/build.test.ts',
  'test/sdk/generated.test.ts',
];

/** vitest's glob for an entry. */
export const asGlob = (entry: string) => (entry.endsWith('/') ? `${entry}**` : entry);
