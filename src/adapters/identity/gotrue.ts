import type { FastifyBaseLogger } from 'fastify';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { IdentityServiceError, type IdentityAccount, type IdentityProvider } from './index.js';
import { inHttpClientSpan, recordHttpStatus, traceHeaders, type PeerCallMeter } from '../../lib/spans.js';

/**
 * The identity provider as a GoTrue (Supabase Auth) server: its admin HTTP API, called with the
 * service-role key. docs/identity-provider.md lists the routes, headers and failure handling.
 */

/**
 * GoTrue bans for a duration, never "until lifted"; 100 years (the value Supabase documents for
 * an indefinite ban) stands for "until `unbanUser`". `none` clears the ban.
 */
export const BAN_DURATION = '876000h';
const UNBAN_DURATION = 'none';

/** The token minted to call `/logout` as the user lives only as long as that one call needs. */
const SIGN_OUT_TOKEN_TTL_SECONDS = 60;

/**
 * GoTrue's error codes that mean "that account is not there" on `/admin/users/{id}` (its user
 * loader answers 404 `user_not_found`, or `validation_failed` for an id that is no UUID), and
 * "nothing left to end" on `/logout` (403 for a session or user its token names but it lacks).
 */
const ACCOUNT_GONE = new Set(['user_not_found', 'validation_failed']);
const SESSION_GONE = new Set(['session_not_found', 'user_not_found']);

/** Enough of GoTrue's user JSON for a profile; unknown fields pass through unread. */
const goTrueUser = z.object({
  id: z.string().min(1),
  email: z.string().nullish(),
  app_metadata: z
    .object({ providers: z.array(z.string()).optional(), provider: z.string().optional() })
    .loose()
    .nullish(),
  identities: z.array(z.object({ provider: z.string() }).loose()).nullish(),
  banned_until: z.string().nullish(),
  email_confirmed_at: z.string().nullish(),
  last_sign_in_at: z.string().nullish(),
  created_at: z.string().nullish(),
});
type GoTrueUser = z.infer<typeof goTrueUser>;

type Operation = 'fetchUser' | 'banUser' | 'unbanUser' | 'signOut' | 'deleteUser';

interface Call {
  operation: Operation;
  method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  /** Path and query after the base URL, ids already encoded. */
  path: string;
  /** The route as a template, for the log (no ids, no query values). */
  route: string;
  body?: unknown;
  /** What goes after `Bearer`: the service key, or for `/logout` a token for the user. */
  bearer: string;
}

interface Answer {
  status: number;
  body: unknown;
  durationMs: number;
}

export interface GoTrueIdentityProviderOptions {
  /** GoTrue's base URL, the part before `/admin/...` (e.g. `https://project.supabase.co/auth/v1`). */
  adminUrl: string;
  /** The service-role key: sent as bearer and as `apikey`. */
  serviceKey: string;
  /** Budget for each call, response body included. */
  timeoutMs: number;
  log: FastifyBaseLogger;
  /**
   * The HS256 secret GoTrue signs access tokens with (the service's JWT_SECRET). Only `signOut`
   * needs it: GoTrue has no admin route that ends a user's sessions, only `/logout`, which acts
   * for the user its bearer token names.
   */
  jwtSecret?: string | undefined;
  /** Where each call is measured, by operation and outcome (metrics on). */
  meter?: PeerCallMeter | undefined;
}

export class GoTrueIdentityProvider implements IdentityProvider {
  readonly kind = 'gotrue' as const;
  readonly #baseUrl: string;
  readonly #serviceKey: string;
  readonly #timeoutMs: number;
  readonly #log: FastifyBaseLogger;
  readonly #jwtSecret: Uint8Array | undefined;
  readonly #meter: PeerCallMeter | undefined;

  constructor(options: GoTrueIdentityProviderOptions) {
    this.#baseUrl = options.adminUrl.replace(/\/+$/, '');
    this.#serviceKey = options.serviceKey;
    this.#timeoutMs = options.timeoutMs;
    this.#log = options.log;
    this.#meter = options.meter;
    this.#jwtSecret = options.jwtSecret === undefined ? undefined : new TextEncoder().encode(options.jwtSecret);
  }

  async fetchUser(userId: string): Promise<IdentityAccount | null> {
    const call = this.#adminUserCall('fetchUser', 'GET', userId);
    const answer = await this.#send(call);
    if (isAccountGone(answer)) return null;
    if (answer.status !== 200) throw this.#refused(call, answer);
    const parsed = goTrueUser.safeParse(answer.body);
    if (!parsed.success) throw this.#failed(call, answer.status, answer.durationMs, 'the answer is not a GoTrue user');
    return toAccount(parsed.data, new Date());
  }

  async banUser(userId: string): Promise<void> {
    await this.#expectOk(this.#adminUserCall('banUser', 'PUT', userId, { ban_duration: BAN_DURATION }));
  }

  async unbanUser(userId: string): Promise<void> {
    await this.#expectOk(this.#adminUserCall('unbanUser', 'PUT', userId, { ban_duration: UNBAN_DURATION }));
  }

  /**
   * GoTrue ends sessions only through `/logout`, for the user its bearer token names: a token for
   * this user is minted with the shared secret (with `session_id` for one session, scope `local`;
   * without, scope `global`). A session or account GoTrue no longer has has nothing left to end.
   */
  async signOut(userId: string, sessionId?: string): Promise<void> {
    const scope = sessionId === undefined ? 'global' : 'local';
    const route = {
      operation: 'signOut',
      method: 'POST',
      path: `/logout?scope=${scope}`,
      route: `POST /logout?scope=${scope}`,
    } as const;
    if (this.#jwtSecret === undefined) {
      throw this.#failed(
        { ...route, bearer: '' },
        null,
        0,
        'GoTrue has no admin sign-out; calling /logout for the user needs JWT_SECRET, which is not set',
      );
    }
    const call: Call = { ...route, bearer: await this.#userToken(this.#jwtSecret, userId, sessionId) };
    const answer = await this.#send(call);
    if (answer.status === 204 || answer.status === 200) return;
    if ((answer.status === 403 || answer.status === 404) && SESSION_GONE.has(goTrueErrorCode(answer.body) ?? ''))
      return;
    throw this.#refused(call, answer);
  }

  async deleteUser(userId: string): Promise<void> {
    // A hard delete: the platform removes its own row for good too (its soft delete never calls here).
    const call = this.#adminUserCall('deleteUser', 'DELETE', userId, { should_soft_delete: false });
    const answer = await this.#send(call);
    if (isAccountGone(answer)) return;
    if (answer.status !== 200) throw this.#refused(call, answer);
  }

  #adminUserCall(operation: Operation, method: Call['method'], userId: string, body?: unknown): Call {
    return {
      operation,
      method,
      path: `/admin/users/${encodeURIComponent(userId)}`,
      route: `${method} /admin/users/{id}`,
      body,
      bearer: this.#serviceKey,
    };
  }

  async #expectOk(call: Call): Promise<void> {
    const answer = await this.#send(call);
    if (answer.status !== 200) throw this.#refused(call, answer);
  }

  /** One HTTP exchange, body read included, inside the time budget; network trouble throws. */
  async #send(call: Call): Promise<Answer> {
    const started = performance.now();
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${call.bearer}`,
      apikey: this.#serviceKey,
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const url = `${this.#baseUrl}${call.path}`;
    try {
      // Named by the route template (`PUT /admin/users/{id}`): a user's id is no span name.
      return await inHttpClientSpan(
        call.route,
        'identity',
        call.method,
        url,
        async (exchange) => {
          const response = await fetch(url, {
            method: call.method,
            headers: traceHeaders(headers),
            body: call.body === undefined ? undefined : JSON.stringify(call.body),
            signal: AbortSignal.timeout(this.#timeoutMs),
          });
          const text = await response.text();
          recordHttpStatus(exchange, response.status);
          return { status: response.status, body: parseJson(text), durationMs: elapsed(started) };
        },
        this.#meter,
        call.operation,
      );
    } catch (error) {
      throw this.#failed(call, null, elapsed(started), this.#networkProblem(error));
    }
  }

  #networkProblem(error: unknown): string {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return `no answer within ${this.#timeoutMs} ms`;
    }
    const cause =
      error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
    const detail =
      typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.message : String(error);
    return `unreachable (${detail})`;
  }

  /** A 4xx or 5xx answer: GoTrue's code and message go into the error, redacted and bounded. */
  #refused(call: Call, answer: Answer): IdentityServiceError {
    const code = goTrueErrorCode(answer.body);
    const message = goTrueMessage(answer.body);
    const said = [code, message].filter((part) => part !== undefined).join(': ');
    return this.#failed(
      call,
      answer.status,
      answer.durationMs,
      `GoTrue answered ${answer.status}${said === '' ? '' : ` (${said})`}`,
      code,
    );
  }

  /** Logs the one warn line a failure gets and builds its error; neither ever holds a key or token. */
  #failed(
    call: Call,
    status: number | null,
    durationMs: number,
    problem: string,
    providerError?: string,
  ): IdentityServiceError {
    const message = this.#redact(`${call.operation}: ${call.route}: ${problem}`);
    this.#log.warn(
      {
        identity_operation: call.operation,
        route: call.route,
        provider_status: status,
        provider_error: providerError ?? null,
        duration_ms: durationMs,
      },
      this.#redact(`identity provider call failed: ${problem}`),
    );
    return new IdentityServiceError(call.operation, status, message);
  }

  /** A provider echoing a credential back must not carry it into a log line or an error. */
  #redact(text: string): string {
    const bounded = text.length > 500 ? `${text.slice(0, 500)}…` : text;
    return bounded.split(this.#serviceKey).join('[redacted]');
  }

  #userToken(secret: Uint8Array, userId: string, sessionId: string | undefined): Promise<string> {
    const claims: Record<string, string> = { role: 'authenticated' };
    if (sessionId !== undefined) claims.session_id = sessionId;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setAudience('authenticated')
      .setIssuedAt(now)
      .setExpirationTime(now + SIGN_OUT_TOKEN_TTL_SECONDS)
      .sign(secret);
  }
}

function toAccount(user: GoTrueUser, now: Date): IdentityAccount {
  return {
    id: user.id,
    // GoTrue writes an account without an email as "".
    email: user.email ? user.email : null,
    providers: providersOf(user),
    // An expired ban leaves its instant behind; sign-in is no longer disabled by it.
    banned_until: user.banned_until && Date.parse(user.banned_until) > now.getTime() ? user.banned_until : null,
    email_confirmed_at: user.email_confirmed_at ?? null,
    last_sign_in_at: user.last_sign_in_at ?? null,
    created_at: user.created_at ?? null,
  };
}

/** `app_metadata.providers` is GoTrue's own summary; older accounts may only have identities or `provider`. */
function providersOf(user: GoTrueUser): string[] {
  const listed = user.app_metadata?.providers;
  if (listed && listed.length > 0) return [...new Set(listed)];
  const fromIdentities = (user.identities ?? []).map((identity) => identity.provider);
  if (fromIdentities.length > 0) return [...new Set(fromIdentities)];
  const single = user.app_metadata?.provider;
  return single ? [single] : [];
}

/**
 * A 404 from GoTrue itself about the account, not from a proxy in front of it (a wrong base URL
 * must not read as "every account is already gone"). GoTrue before error codes sent
 * `{ code: 404, msg }`, which still is its own shape.
 */
function isAccountGone(answer: Answer): boolean {
  if (answer.status !== 404) return false;
  const code = goTrueErrorCode(answer.body);
  if (code !== undefined) return ACCOUNT_GONE.has(code);
  const record =
    typeof answer.body === 'object' && answer.body !== null ? (answer.body as Record<string, unknown>) : {};
  return record.code === 404 && typeof record.msg === 'string';
}

/**
 * GoTrue's error body is `{ code: <status>, error_code, msg }`, or `{ code: <error code>, message }`
 * for clients asking API version 2024-01-01. A body without either (a proxy's 404) has no code.
 */
function goTrueErrorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.error_code === 'string') return record.error_code;
  if (typeof record.code === 'string') return record.code;
  return undefined;
}

function goTrueMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['msg', 'message', 'error_description', 'error']) {
    if (typeof record[key] === 'string') return record[key];
  }
  return undefined;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
