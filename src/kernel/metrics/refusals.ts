import { databaseFailureOf } from '../../db/failures.js';
import { AppError } from '../errors.js';
import { PanicModeError } from '../maintenance.js';
import { RateLimitedError } from '../rate-limits.js';
import type { Refusal } from './metrics.js';

/**
 * The refusal an error answers with, if it is one; read from the error itself (its class, its
 * details), so every place that refuses is counted without each counting: the limiter's
 * `RateLimitedError` names its rule, `PanicModeError` its level, and the three overload refusals
 * (requests in flight, anonymous uploads, no pooled session free) answer 503 `overloaded`.
 */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof RateLimitedError) return { reason: 'rate_limit', rule: error.rule };
  if (error instanceof PanicModeError) {
    return error.level === 'off' ? undefined : { reason: 'maintenance', level: error.level };
  }
  if (error instanceof AppError) {
    const details = error.details as { reason?: unknown } | undefined;
    return error.status === 503 && details?.reason === 'overloaded' ? { reason: 'overload' } : undefined;
  }
  // The error handler answers this one 503 `overloaded` (errors.ts).
  return databaseFailureOf(error) === 'busy' ? { reason: 'overload' } : undefined;
}
