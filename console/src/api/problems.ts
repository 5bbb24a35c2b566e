import { isPlatformApiError, type SchemaIssue } from '@platform-api/sdk';

/** Each of the spec's error codes as a sentence a staff member can act on. */
const SENTENCES: Record<string, string> = {
  missing_token: 'You are not signed in.',
  invalid_token: 'Your session has ended. Sign in again.',
  invalid_audience: 'This token was not issued for this service. Sign in again.',
  forbidden: 'You do not have the permission this needs.',
  not_found: 'It no longer exists, or never did.',
  product: 'That product does not exist.',
  audience: 'That audience does not exist.',
  campaign: 'That campaign does not exist.',
  game_not_found: 'That game does not exist.',
  conflict: 'Something with the same key already exists, or it changed while you were editing.',
  invalid_request: 'The service refused this change.',
  invalid_state: 'It is not in a state that allows this.',
  validation_failed: 'Some values are not valid.',
  price_mismatch: 'That price does not belong to the product.',
  product_has_no_price: 'That product has no price.',
  too_many_members: 'That is more members than an audience can hold.',
  empty_segment: 'No user matches these filters.',
  segment_too_large: 'Too many users match these filters.',
  rate_limited: 'Too many requests. Wait a moment and try again.',
  internal: 'The service failed. Quote the request id to the team that runs it.',
  auth_service_error: 'The identity provider refused the call. Try again later.',
  unavailable: 'A service this depends on is unreachable. Try again shortly.',
  panic_mode: 'The platform is in maintenance and refuses this for now.',
  invalid_sign_in_code: 'This sign-in link was used already or has expired.',
  unreadable_response: 'The service gave an answer the console cannot read.',
  SchemaError: 'Some values are not valid.',
};

export interface ProblemText {
  /** One sentence for the whole failure. */
  message: string;
  /** Validation issues by field path (`reason`, `expires_at`), for the fields of a form. */
  fields: Record<string, string>;
  requestId: string | undefined;
}

/** How a refusal that names its reason (`details.reason`) begins: the reason says the rest. */
const REASON_LEADS: Record<string, string> = {
  conflict: 'This conflicts with what is stored',
  invalid_state: 'It is not in a state that allows this',
  invalid_request: 'The service refused this',
};

const reasonOf = (details: unknown): string | undefined =>
  typeof details === 'object' && details !== null && typeof (details as { reason?: unknown }).reason === 'string'
    ? (details as { reason: string }).reason
    : undefined;

const permissionOf = (details: unknown): string | undefined =>
  typeof details === 'object' && details !== null && typeof (details as { perm?: unknown }).perm === 'string'
    ? (details as { perm: string }).perm
    : undefined;

/** What a failed call means, in words. */
export function describeProblem(error: unknown): ProblemText {
  if (!isPlatformApiError(error)) {
    return { message: 'The service could not be reached. Check the connection.', fields: {}, requestId: undefined };
  }
  const fields: Record<string, string> = {};
  if (error.problem.kind === 'validation') {
    for (const issue of error.problem.issues as SchemaIssue[]) fields[issue.path.join('.')] ??= issue.message;
  }
  const reason = reasonOf(error.details);
  const lead = REASON_LEADS[error.code];
  const base =
    reason !== undefined && lead !== undefined
      ? `${lead}: ${reason}.`
      : (SENTENCES[error.code] ?? `The service refused this (${error.code}).`);
  const perm = error.code === 'forbidden' ? permissionOf(error.details) : undefined;
  const message = perm === undefined ? base : `${base} Missing: ${perm}.`;
  return { message, fields, requestId: error.requestId };
}
