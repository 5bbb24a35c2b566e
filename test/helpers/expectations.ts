import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';

/** The request id a response carries (every response has one). */
export const requestIdOf = (response: LightMyRequestResponse) => response.headers['x-request-id'] as string;

/** The audit rows one request wrote. */
export const auditOf = (db: Kernel['db'], requestId: string) =>
  db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute();

/** A 400 body naming one zod issue (matched on the fields given). */
export const schemaError = (issue: Record<string, unknown>) => ({
  success: false,
  error: { name: 'SchemaError', issues: [expect.objectContaining(issue)] },
});
