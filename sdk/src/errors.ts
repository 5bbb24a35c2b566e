/**
 * What a refusal means, read from its body: the API answers three shapes, `{ error, details? }` (an
 * application error with a stable code), the validation body `{ success: false, error: { name:
 * 'SchemaError', issues } }` and the maintenance body `{ error: 'panic_mode', level, reason }`.
 */

/** One validation issue, with zod's own fields (`code`, `path`, `message`, and more by code). */
export interface SchemaIssue {
  code: string;
  path: Array<string | number>;
  message: string;
  [field: string]: unknown;
}

/** 400: params, query, headers or body did not match the operation's schema. */
export interface ValidationProblem {
  kind: 'validation';
  status: 400;
  code: 'SchemaError';
  issues: SchemaIssue[];
  details?: undefined;
}

/** 503: the operation is refused at the current maintenance level; `Retry-After` says when to look again. */
export interface MaintenanceProblem {
  kind: 'maintenance';
  status: 503;
  code: 'panic_mode';
  level: 'degraded' | 'lockdown';
  reason: string | null;
  details?: undefined;
}

/** Any other refusal: a stable `code` (`not_found`, `forbidden`, `rate_limited`…) and optional details. */
export interface ApplicationProblem<Code extends string = string> {
  kind: 'application';
  status: number;
  code: Code;
  details: unknown;
}

/** A body that is none of the API's shapes: an empty answer, or a proxy's page in front of the API. */
export interface UnreadableProblem {
  kind: 'unreadable';
  status: number;
  code: 'unreadable_response';
  details: unknown;
}

export type ApiProblem = ValidationProblem | MaintenanceProblem | ApplicationProblem | UnreadableProblem;

/**
 * The problems an operation's declared error bodies describe (`Body` is the `error` of its result):
 * the codes it declares are literal types, so a `switch` on `code` is checked.
 */
export type ProblemFor<Body> =
  | (Body extends { error: { name: 'SchemaError' } }
      ? ValidationProblem
      : Body extends { error: 'panic_mode' }
        ? MaintenanceProblem
        : Body extends { error: infer Code extends string }
          ? ApplicationProblem<Code>
          : never)
  | UnreadableProblem;

/** An openapi-fetch result: data with a 2xx answer, the parsed body as `error` otherwise. */
export type ApiResult<Data = unknown, ErrorBody = unknown> =
  | { data: Data; error?: never; response: Response }
  | { data?: never; error: ErrorBody; response: Response };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a refusal's body; `status` is the answer's. */
export function problemOf(status: number, body: unknown): ApiProblem {
  if (isRecord(body)) {
    const error = body.error;
    if (body.success === false && isRecord(error) && error.name === 'SchemaError' && Array.isArray(error.issues)) {
      return { kind: 'validation', status: status as 400, code: 'SchemaError', issues: error.issues as SchemaIssue[] };
    }
    if (error === 'panic_mode') {
      const level = body.level === 'degraded' ? 'degraded' : 'lockdown';
      const reason = typeof body.reason === 'string' ? body.reason : null;
      return { kind: 'maintenance', status: status as 503, code: 'panic_mode', level, reason };
    }
    if (typeof error === 'string') return { kind: 'application', status, code: error, details: body.details };
  }
  return { kind: 'unreadable', status, code: 'unreadable_response', details: body };
}

/** Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), or undefined without one. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * A refused call: the answer's status, the problem its body describes (discriminated by `kind`, then
 * `code`), the `x-request-id` to quote to the operator, and `Retry-After` in seconds when it had one.
 */
export class PlatformApiError<Problem extends ApiProblem = ApiProblem> extends Error {
  override readonly name = 'PlatformApiError';
  readonly problem: Problem;
  readonly status: number;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  /** The answer's URL, without the request's headers or body. */
  readonly url: string;

  constructor(problem: Problem, response: Pick<Response, 'headers' | 'url'>) {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    super(`${problem.status} ${problem.code}${requestId === undefined ? '' : ` (request ${requestId})`}`);
    this.problem = problem;
    this.status = problem.status;
    this.requestId = requestId;
    this.retryAfter = retryAfterSeconds(response.headers);
    this.url = response.url;
  }

  /** The error code: the application error's `error`, `SchemaError` or `panic_mode`. */
  get code(): Problem['code'] {
    return this.problem.code;
  }

  get details(): unknown {
    return this.problem.details;
  }
}

/**
 * Whether a caught value is a refusal of the API. Prefer it to `instanceof`, which types a generic
 * class's instance as `PlatformApiError<any>` and so loses the `problem` union.
 */
export function isPlatformApiError(value: unknown): value is PlatformApiError {
  return value instanceof PlatformApiError;
}

/** The `x-request-id` the service gave this answer (every answer carries one). */
export function requestIdOf(result: { response: Pick<Response, 'headers'> }): string | undefined {
  return result.response.headers.get('x-request-id') ?? undefined;
}

type ErrorBodyOf<Result> = Result extends { error: infer Body } ? Exclude<Body, undefined> : never;
type DataOf<Result> = Result extends { data: infer Data } ? Data : never;

/** The refusal a result carries, typed by its operation's declared errors; undefined for a 2xx answer. */
export function apiErrorOf<Result extends ApiResult>(
  result: Result,
): PlatformApiError<ProblemFor<ErrorBodyOf<Result>>> | undefined {
  if (result.response.ok) return undefined;
  const problem = problemOf(result.response.status, result.error) as ProblemFor<ErrorBodyOf<Result>>;
  return new PlatformApiError(problem, result.response);
}

/** The data of a 2xx answer, or a thrown `PlatformApiError`: `const user = await unwrap(client.GET('/v1/me'))`. */
export async function unwrap<Result extends ApiResult>(result: Result | Promise<Result>): Promise<DataOf<Result>> {
  const settled = await result;
  const failure = apiErrorOf(settled);
  if (failure !== undefined) throw failure;
  return settled.data as DataOf<Result>;
}
