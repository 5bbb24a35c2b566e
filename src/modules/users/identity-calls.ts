import type { FastifyBaseLogger } from 'fastify';
import { IdentityServiceError } from '../../adapters/identity/index.js';
import { authServiceError } from '../../kernel/errors.js';

/**
 * Runs one identity-provider call for a route. A refusal or failure becomes 502
 * `auth_service_error` naming only the operation: the provider's status and message go to the
 * log (with the request id), never to the caller.
 */
export async function identityCall<T>(
  log: FastifyBaseLogger,
  requestId: string | null,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof IdentityServiceError)) throw error;
    log.warn(
      {
        request_id: requestId,
        identity_operation: operation,
        provider_status: error.status,
        err: { message: error.message },
      },
      'identity provider refused or failed a call',
    );
    throw authServiceError({ operation });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether the identity provider can hold this session: its sessions have UUIDs (GoTrue's
 * `session_id`); anything else (a token family, another issuer's id) exists only here, and
 * asking GoTrue about it would fail.
 */
export const providerMayHoldSession = (sessionId: string): boolean => UUID.test(sessionId);
