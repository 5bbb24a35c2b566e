/**
 * @platform-api/sdk: a typed client for the Platform API, generated from its committed OpenAPI
 * document (schema.d.ts), with the helpers every consumer would otherwise write again.
 */
export { createPlatformClient, type PlatformClient, type PlatformClientOptions, type TokenProvider } from './client.js';
export {
  type ApiProblem,
  type ApiResult,
  type ApplicationProblem,
  apiErrorOf,
  isPlatformApiError,
  type MaintenanceProblem,
  PlatformApiError,
  type ProblemFor,
  problemOf,
  requestIdOf,
  retryAfterSeconds,
  type SchemaIssue,
  type UnreadableProblem,
  unwrap,
  type ValidationProblem,
} from './errors.js';
export { type ListBody, type ListInit, type ListItem, type ListPath, paginate } from './pagination.js';
export {
  connectRealtime,
  type ErrorFrame,
  type EventFrame,
  type NotificationFrame,
  type RealtimeClose,
  type RealtimeConnection,
  type RealtimeFrame,
  type RealtimeListeners,
  type RealtimeNotification,
  type RealtimeOptions,
  type RealtimeSocket,
  type RealtimeSocketConstructor,
  type SubscribedFrame,
} from './realtime.js';
export { type FieldRule, REQUEST_FIELDS } from './request-fields.js';
export type { Fetch, RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
