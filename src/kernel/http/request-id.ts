import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const INBOUND_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuse a caller's well-formed `x-request-id`; anything else gets a fresh one. */
export function requestIdFor(request: IncomingMessage): string {
  const inbound = request.headers['x-request-id'];
  return typeof inbound === 'string' && INBOUND_REQUEST_ID.test(inbound) ? inbound : randomUUID();
}
