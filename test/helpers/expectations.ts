import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { RUNTIME_RETRY_AFTER_SECONDS } from '../../src/modules/runtime/runtime-errors.js';

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

/**
 * A refused request: answered exactly `status` with `body`, and `state` reads the same after it as
 * before (nothing stored, audited or emitted). Answers the response.
 */
export async function expectRefusedUnchanged(
  state: () => Promise<unknown>,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  body: unknown,
): Promise<LightMyRequestResponse> {
  const before = await state();
  const response = await send();
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
  expect(await state()).toEqual(before);
  return response;
}

/**
 * A refused request as `expectRefusedUnchanged` checks it, and no audit row or outbox event names
 * its request id (where `state` compares the audit log and the outbox by size, or not at all).
 */
export async function expectRefusedUnrecorded(
  db: Kernel['db'],
  state: () => Promise<unknown>,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  body: unknown,
): Promise<LightMyRequestResponse> {
  const response = await expectRefusedUnchanged(state, send, status, body);
  const requestId = requestIdOf(response);
  // A lookup by a missing id would find nothing, and prove nothing.
  expect(requestId).toEqual(expect.stringMatching(/./));
  expect(await auditOf(db, requestId)).toEqual([]);
  expect(await db.selectFrom('event_outbox').selectAll().where('request_id', '=', requestId).execute()).toEqual([]);
  return response;
}

/** The error `call` fails with, which must be an instance of `kind`. */
export async function rejectionOf<E extends Error>(
  call: Promise<unknown> | (() => unknown),
  kind: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return error as E;
  }
  throw new Error(`expected a ${kind.name}`);
}

/** The 503 of a runtime call that could not be made: the reason, and when to try again. */
export function expectRuntimeUnavailable(response: LightMyRequestResponse, reason = 'runtime_unavailable') {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.json()).toEqual({ error: 'unavailable', details: { reason } });
  expect(response.headers['retry-after']).toBe(String(RUNTIME_RETRY_AFTER_SECONDS));
}
