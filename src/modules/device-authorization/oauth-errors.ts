import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, handleError, type ZodValidationEntry } from '../../kernel/errors.js';

/** The RFC 6749 section 5.2 and RFC 8628 section 3.5 error codes these routes answer. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token';

/**
 * An OAuth-style refusal: `{ error, error_description?, interval? }` (the spec: device-code
 * endpoints answer `{ "error": "..." }`). OAuth clients read `error` at the top level, so no
 * `details` wrapper.
 */
export class OAuthError extends AppError {
  constructor(
    code: OAuthErrorCode,
    readonly description?: string,
    /** slow_down only: the interval in seconds the client must now keep. */
    readonly interval?: number,
    headers?: Record<string, string>,
  ) {
    super(400, code, undefined, headers);
  }

  override toBody(): unknown {
    return {
      error: this.code,
      ...(this.description !== undefined ? { error_description: this.description } : {}),
      ...(this.interval !== undefined ? { interval: this.interval } : {}),
    };
  }
}

/**
 * The interval the kernel's per-IP slow_down asks for: at least the default plus 5 (RFC 8628 section 3.5), and not
 * before the IP's window reopens.
 */
function intervalForIpLimit(error: AppError, defaultInterval: number): number {
  const retryAfter = Number(error.headers?.['retry-after'] ?? 0);
  return Math.max(defaultInterval + 5, Number.isFinite(retryAfter) ? retryAfter : 0);
}

/**
 * The error handler of the public device routes. Two things differ from the kernel's: a body
 * that fails validation answers OAuth's `invalid_request` (an OAuth client cannot read a
 * SchemaError), and the kernel's per-IP `slow_down` (thrown by the rate limiter before the body
 * is read, so without any interval) gains the `interval` the spec says slow_down includes.
 */
export function oauthErrorHandler(defaultInterval: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError && !(error instanceof OAuthError) && error.code === 'slow_down') {
      return handleError(
        new OAuthError(
          'slow_down',
          'too many requests from this address',
          intervalForIpLimit(error, defaultInterval),
          error.headers,
        ) as unknown as FastifyError,
        request,
        reply,
      );
    }
    if (Array.isArray(error.validation)) {
      const issues = (error.validation as unknown as ZodValidationEntry[])
        .map((entry) => [entry.params?.issue?.path?.join('.'), entry.message].filter(Boolean).join(': '))
        .join('; ');
      return handleError(new OAuthError('invalid_request', issues) as unknown as FastifyError, request, reply);
    }
    return handleError(error, request, reply);
  };
}
