import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

/**
 * A GoTrue (Supabase Auth) server on loopback, speaking the routes the `gotrue` identity provider
 * calls, with the behaviour of the real handlers (supabase/auth internal/api: admin.go, auth.go,
 * logout.go, magic_link.go, verify.go, token.go, models/flow_state.go): users and sessions in memory,
 * GoTrue's error bodies `{ code, error_code, msg }`. A magic link asked for with a code challenge
 * follows the PKCE flow (the link returns with `?code=`, exchanged at `/token?grant_type=pkce`);
 * one asked for without follows the implicit flow (tokens in the fragment).
 * A test can make it refuse, fail or hang, and reads back every request it received.
 */

export interface GoTrueIdentity {
  identity_id: string;
  id: string;
  user_id: string;
  provider: string;
  identity_data: Record<string, unknown>;
  email?: string;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A user as GoTrue's `models.User` marshals it (`banned_until` is `omitempty`). */
export interface GoTrueUser {
  id: string;
  aud: string;
  role: string;
  email: string;
  email_confirmed_at?: string;
  phone: string;
  confirmed_at?: string;
  last_sign_in_at?: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  identities: GoTrueIdentity[];
  created_at: string;
  updated_at: string;
  banned_until?: string;
  deleted_at?: string;
  is_anonymous: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  /** The JSON body, parsed; null when there was none. */
  body: unknown;
  /** `Authorization: Bearer <service key>`. */
  bearerIsServiceKey: boolean;
  /** `apikey: <service key>`. */
  apikeyIsServiceKey: boolean;
  /** The bearer token itself (for `/logout`, the token minted for the user). */
  bearer: string | null;
  contentType: string | null;
}

export type GoTrueBehaviour =
  | { kind: 'normal' }
  /** Every request gets this status and body (GoTrue-style refusals, 500s, a proxy's 404). */
  | { kind: 'answer'; status: number; body: unknown }
  /** Every request is read and never answered. */
  | { kind: 'hang' };

export interface GoTrueServer {
  /** The base URL the provider is configured with (includes the path prefix, if any). */
  url: string;
  readonly requests: RecordedRequest[];
  /** Adds an account; the fields given override a typical email user's. */
  addUser(overrides?: Partial<GoTrueUser>): GoTrueUser;
  user(id: string): GoTrueUser | undefined;
  /** Starts a sign-in session for the user; returns its id (the tokens' `session_id`). */
  addSession(userId: string): string;
  sessionsOf(userId: string): string[];
  behave(behaviour: GoTrueBehaviour): void;
  /** Lets the user sign in with this password (`POST /token?grant_type=password`). */
  setPassword(userId: string, password: string): void;
  /** Magic links `POST /otp` would have mailed, newest last: open `link` to sign in. */
  readonly sentLinks: Array<{ email: string; link: string }>;
  /** Signs the user in as `/token` would and returns the tokens (a session of their own). */
  signIn(userId: string): Promise<{ access_token: string; refresh_token: string }>;
  close(): Promise<void>;
}

export interface GoTrueServerOptions {
  serviceKey: string;
  /** The HS256 secret access tokens are signed with (`/logout` verifies its bearer with it). */
  jwtSecret: string;
  /** Where GoTrue is mounted, as behind Supabase's gateway (`/auth/v1`). */
  prefix?: string;
  /** The public key browsers send as `apikey` on the sign-in routes (`/token`, `/otp`, `/verify`). */
  anonKey?: string;
  /** Life of the access tokens `/token` issues (GoTrue's JWT_EXP; default 3600). */
  accessTokenSeconds?: number;
}

/** A PKCE flow state (GoTrue's `flow_state` row): the challenge a magic link was asked with. */
interface FlowState {
  authCode: string;
  userId: string;
  challenge: string;
  method: 's256' | 'plain';
  createdAt: number;
}

/** GoTrue's default FLOW_STATE_EXPIRY_DURATION: an auth code is exchanged within 5 minutes. */
const FLOW_STATE_EXPIRY_MS = 300_000;

/** GoTrue's `VerifyPKCE`: S256 compares base64url(SHA-256(verifier)) with the challenge, in constant time. */
function verifierMatches(flow: FlowState, verifier: string): boolean {
  const expected = Buffer.from(flow.challenge);
  const given = Buffer.from(
    flow.method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier,
  );
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GoTrue's HTTPError as it marshals without an API-version header. */
export function goTrueError(status: number, errorCode: string, msg: string) {
  return { code: status, error_code: errorCode, msg };
}

export async function startGoTrueServer(options: GoTrueServerOptions): Promise<GoTrueServer> {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const users = new Map<string, GoTrueUser>();
  const sessions = new Map<string, string>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let behaviour: GoTrueBehaviour = { kind: 'normal' };
  const secret = new TextEncoder().encode(options.jwtSecret);
  const passwords = new Map<string, string>();
  /** Refresh token → the session it renews; each is used once (GoTrue rotates them). */
  const refreshTokens = new Map<string, { userId: string; sessionId: string }>();
  /** One-time magic-link tokens → the user, where the link returns, and its PKCE flow state if any. */
  const linkTokens = new Map<string, { userId: string; redirectTo: string; flow?: FlowState }>();
  /** PKCE flow states by auth code (GoTrue's `flow_state` table): one exchange each. */
  const flowStates = new Map<string, FlowState>();
  const sentLinks: Array<{ email: string; link: string }> = [];
  let base = '';

  /** GoTrue answers browsers on its sign-in routes (its CORS middleware allows every origin). */
  const cors = (request: IncomingMessage): Record<string, string> =>
    request.headers.origin === undefined
      ? {}
      : {
          'access-control-allow-origin': request.headers.origin,
          'access-control-allow-headers': 'apikey, authorization, content-type, x-client-info',
          'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
        };
  let corsHeaders: Record<string, string> = {};
  const send = (response: ServerResponse, status: number, body: unknown) => {
    if (status === 204) {
      response.writeHead(204, corsHeaders).end();
      return;
    }
    response.writeHead(status, { 'content-type': 'application/json', ...corsHeaders }).end(JSON.stringify(body));
  };

  /** A session's tokens as GoTrue's `/token` gives them: a signed access token and a fresh refresh token. */
  async function sessionTokens(user: GoTrueUser, sessionId: string) {
    const lifetime = options.accessTokenSeconds ?? 3600;
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({
      email: user.email,
      role: 'authenticated',
      session_id: sessionId,
      aud: 'authenticated',
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetime)
      .sign(secret);
    const refreshToken = randomUUID().replace(/-/g, '');
    refreshTokens.set(refreshToken, { userId: user.id, sessionId });
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: lifetime,
      expires_at: now + lifetime,
      refresh_token: refreshToken,
      user,
    };
  }

  /** `/token`, `/otp` and `/verify`: what a browser signing in calls, with the anon key. */
  async function signInRoute(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    url: URL,
    body: unknown,
  ) {
    const fields = (body ?? {}) as Record<string, unknown>;
    const grantType = url.searchParams.get('grant_type');
    if (path === '/token' && grantType === 'password') {
      const user = [...users.values()].find((each) => each.email === fields.email);
      if (user === undefined || passwords.get(user.id) !== fields.password)
        return send(response, 400, goTrueError(400, 'invalid_credentials', 'Invalid login credentials'));
      const sessionId = randomUUID();
      sessions.set(sessionId, user.id);
      return send(response, 200, await sessionTokens(user, sessionId));
    }
    if (path === '/token' && grantType === 'refresh_token') {
      const held = refreshTokens.get(String(fields.refresh_token));
      const user = held === undefined ? undefined : users.get(held.userId);
      if (held === undefined || user === undefined || !sessions.has(held.sessionId))
        return send(
          response,
          400,
          goTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
        );
      refreshTokens.delete(String(fields.refresh_token));
      return send(response, 200, await sessionTokens(user, held.sessionId));
    }
    if (path === '/token' && grantType === 'pkce') {
      const authCode = typeof fields.auth_code === 'string' ? fields.auth_code : '';
      const verifier = typeof fields.code_verifier === 'string' ? fields.code_verifier : '';
      if (authCode === '' || verifier === '')
        return send(
          response,
          400,
          goTrueError(
            400,
            'validation_failed',
            'invalid request: both auth code and code verifier should be non-empty',
          ),
        );
      const flow = flowStates.get(authCode);
      const user = flow === undefined ? undefined : users.get(flow.userId);
      if (flow === undefined || user === undefined)
        return send(
          response,
          404,
          goTrueError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found'),
        );
      if (Date.now() - flow.createdAt > FLOW_STATE_EXPIRY_MS)
        return send(
          response,
          422,
          goTrueError(422, 'flow_state_expired', 'invalid flow state, flow state has expired'),
        );
      if (!verifierMatches(flow, verifier))
        return send(
          response,
          400,
          goTrueError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier'),
        );
      flowStates.delete(authCode);
      const sessionId = randomUUID();
      sessions.set(sessionId, user.id);
      return send(response, 200, await sessionTokens(user, sessionId));
    }
    if (path === '/otp') {
      const challenge = typeof fields.code_challenge === 'string' ? fields.code_challenge : '';
      const method = typeof fields.code_challenge_method === 'string' ? fields.code_challenge_method : '';
      if ((challenge === '') !== (method === ''))
        return send(
          response,
          400,
          goTrueError(400, 'validation_failed', 'PKCE flow requires code_challenge_method and code_challenge'),
        );
      if (challenge !== '' && (challenge.length < 43 || challenge.length > 128))
        return send(
          response,
          400,
          goTrueError(400, 'validation_failed', 'code challenge has to be between 43 and 128 characters'),
        );
      if (challenge !== '' && !/^[A-Za-z0-9._~-]+$/.test(challenge))
        return send(
          response,
          400,
          goTrueError(
            400,
            'validation_failed',
            'code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes',
          ),
        );
      const flowMethod = method.toLowerCase();
      if (method !== '' && flowMethod !== 's256' && flowMethod !== 'plain')
        return send(
          response,
          400,
          goTrueError(400, 'validation_failed', `unsupported code_challenge method "${method}"`),
        );
      const user = [...users.values()].find((each) => each.email === fields.email);
      // GoTrue answers the same whether or not the account exists (no account enumeration).
      if (user !== undefined) {
        const flow =
          challenge === ''
            ? undefined
            : {
                authCode: randomUUID(),
                userId: user.id,
                challenge,
                method: flowMethod as FlowState['method'],
                createdAt: Date.now(),
              };
        // A PKCE link's token carries GoTrue's `pkce_` prefix.
        const token = `${flow === undefined ? '' : 'pkce_'}${randomUUID().replace(/-/g, '')}`;
        linkTokens.set(token, { userId: user.id, redirectTo: url.searchParams.get('redirect_to') ?? '', flow });
        sentLinks.push({ email: user.email, link: `${base}/verify?token=${token}&type=magiclink` });
      }
      return send(response, 200, {});
    }
    if (path === '/verify' && request.method === 'GET') {
      const held = linkTokens.get(url.searchParams.get('token') ?? '');
      const user = held === undefined ? undefined : users.get(held.userId);
      if (held === undefined || user === undefined)
        return send(response, 403, goTrueError(403, 'otp_expired', 'Email link is invalid or has expired'));
      linkTokens.delete(url.searchParams.get('token') ?? '');
      if (held.flow !== undefined) {
        // PKCE: the redirect carries only the auth code, in the query; the session comes from
        // `/token?grant_type=pkce` with the verifier of the challenge the link was asked with.
        flowStates.set(held.flow.authCode, held.flow);
        const target = new URL(held.redirectTo);
        target.searchParams.set('code', held.flow.authCode);
        response.writeHead(303, { location: target.toString() }).end();
        return;
      }
      const sessionId = randomUUID();
      sessions.set(sessionId, user.id);
      // The redirect carries the session in its fragment, as GoTrue's implicit flow does.
      const tokens = await sessionTokens(user, sessionId);
      const fragment = new URLSearchParams({
        access_token: String(tokens.access_token),
        refresh_token: String(tokens.refresh_token),
        expires_in: String(tokens.expires_in),
        token_type: 'bearer',
        type: 'magiclink',
      });
      response.writeHead(303, { location: `${held.redirectTo}#${fragment}` }).end();
      return;
    }
    return send(response, 404, goTrueError(404, 'unknown', 'Not found'));
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const raw = await readBody(request);
    const authorization = request.headers.authorization ?? '';
    const bearer = /^Bearer (\S+)$/i.exec(authorization)?.[1] ?? null;
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      body: raw === '' ? null : safeJson(raw),
      bearerIsServiceKey: bearer === options.serviceKey,
      apikeyIsServiceKey: request.headers.apikey === options.serviceKey,
      bearer,
      contentType: request.headers['content-type'] ?? null,
    };
    requests.push(recorded);

    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'answer') return send(response, behaviour.status, behaviour.body);

    const url = new URL(request.url ?? '/', 'http://gotrue.test');
    if (!url.pathname.startsWith(`${prefix}/`))
      return send(response, 404, { message: 'no Route matched with those values' });
    const path = url.pathname.slice(prefix.length);
    corsHeaders = cors(request);
    if (request.method === 'OPTIONS') return send(response, 204, null);
    if (path === '/verify') return signInRoute(request, response, path, url, recorded.body);
    // The gateway in front of GoTrue checks `apikey`; GoTrue itself checks the bearer.
    const apikey = request.headers.apikey;
    if ((path === '/token' || path === '/otp') && options.anonKey !== undefined && apikey === options.anonKey)
      return signInRoute(request, response, path, url, recorded.body);
    // A browser signs its own session out with the anon key and its access token.
    if (path === '/logout' && request.method === 'POST' && options.anonKey !== undefined && apikey === options.anonKey)
      return logout(response, bearer, url.searchParams.get('scope'));
    if (!recorded.apikeyIsServiceKey) return send(response, 401, { message: 'Invalid API key' });

    const adminUser = /^\/admin\/users\/([^/]+)$/.exec(path);
    if (adminUser) {
      if (!recorded.bearerIsServiceKey)
        return send(
          response,
          401,
          goTrueError(401, 'no_authorization', 'This endpoint requires a valid service role token'),
        );
      const id = decodeURIComponent(adminUser[1]!);
      if (!UUID.test(id)) return send(response, 404, goTrueError(404, 'validation_failed', 'user_id must be an UUID'));
      const user = users.get(id);
      if (!user) return send(response, 404, goTrueError(404, 'user_not_found', 'User not found'));
      if (request.method === 'GET') return send(response, 200, user);
      if (request.method === 'PUT') return updateUser(response, user, recorded.body);
      if (request.method === 'DELETE') return deleteUser(response, user, recorded.body);
      return send(response, 405, goTrueError(405, 'unknown', 'Method not allowed'));
    }
    if (path === '/logout' && request.method === 'POST') return logout(response, bearer, url.searchParams.get('scope'));
    return send(response, 404, goTrueError(404, 'unknown', 'Not found'));
  }

  function updateUser(response: ServerResponse, user: GoTrueUser, body: unknown) {
    const banDuration = (body as { ban_duration?: unknown } | null)?.ban_duration;
    if (typeof banDuration === 'string' && banDuration !== '') {
      const ms = banDuration === 'none' ? 0 : parseGoDuration(banDuration);
      if (ms === null)
        return send(
          response,
          400,
          goTrueError(
            400,
            'validation_failed',
            `invalid format for ban duration: time: invalid duration "${banDuration}"`,
          ),
        );
      if (ms === 0) delete user.banned_until;
      else user.banned_until = new Date(Date.now() + ms).toISOString();
    }
    user.updated_at = new Date().toISOString();
    return send(response, 200, user);
  }

  function deleteUser(response: ServerResponse, user: GoTrueUser, body: unknown) {
    const soft = (body as { should_soft_delete?: unknown } | null)?.should_soft_delete === true;
    for (const [sessionId, owner] of sessions) if (owner === user.id) sessions.delete(sessionId);
    if (soft) user.deleted_at = new Date().toISOString();
    else users.delete(user.id);
    return send(response, 200, {});
  }

  async function logout(response: ServerResponse, bearer: string | null, scope: string | null) {
    if (scope !== null && !['global', 'local', 'others'].includes(scope)) {
      return send(response, 400, goTrueError(400, 'validation_failed', `Unsupported logout scope "${scope}"`));
    }
    if (bearer === null)
      return send(response, 401, goTrueError(401, 'no_authorization', 'This endpoint requires a Bearer token'));
    let claims: { sub?: string; session_id?: unknown };
    try {
      ({ payload: claims } = await jwtVerify(bearer, secret, { algorithms: ['HS256'] }));
    } catch (error) {
      return send(
        response,
        403,
        goTrueError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${(error as Error).message}`),
      );
    }
    if (!claims.sub) return send(response, 403, goTrueError(403, 'bad_jwt', 'invalid claim: missing sub claim'));
    if (!users.has(claims.sub))
      return send(response, 403, goTrueError(403, 'user_not_found', 'User from sub claim in JWT does not exist'));
    const sessionId = typeof claims.session_id === 'string' ? claims.session_id : null;
    if (sessionId !== null && !sessions.has(sessionId)) {
      return send(
        response,
        403,
        goTrueError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
      );
    }
    const userId = claims.sub;
    if (sessionId !== null && scope === 'local') sessions.delete(sessionId);
    else if (sessionId !== null && scope === 'others') {
      for (const [id, owner] of sessions) if (owner === userId && id !== sessionId) sessions.delete(id);
    } else {
      for (const [id, owner] of sessions) if (owner === userId) sessions.delete(id);
    }
    return send(response, 204, null);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) =>
      send(response, 500, goTrueError(500, 'unexpected_failure', String(error))),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}${prefix}`;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    addUser(overrides = {}) {
      const id = overrides.id ?? randomUUID();
      const email = overrides.email ?? `player-${id.slice(0, 8)}@example.test`;
      const now = new Date().toISOString();
      const user: GoTrueUser = {
        id,
        aud: 'authenticated',
        role: 'authenticated',
        email,
        email_confirmed_at: now,
        phone: '',
        confirmed_at: now,
        last_sign_in_at: now,
        app_metadata: { provider: 'email', providers: ['email'] },
        user_metadata: { email_verified: true },
        identities: [
          {
            identity_id: randomUUID(),
            id,
            user_id: id,
            provider: 'email',
            email,
            identity_data: { sub: id, email, email_verified: true },
            last_sign_in_at: now,
            created_at: now,
            updated_at: now,
          },
        ],
        created_at: now,
        updated_at: now,
        is_anonymous: false,
        ...overrides,
      };
      users.set(id, user);
      return user;
    },
    user: (id) => users.get(id),
    addSession(userId) {
      const id = randomUUID();
      sessions.set(id, userId);
      return id;
    },
    sessionsOf: (userId) => [...sessions].filter(([, owner]) => owner === userId).map(([id]) => id),
    behave(next) {
      behaviour = next;
    },
    setPassword(userId, password) {
      passwords.set(userId, password);
    },
    sentLinks,
    async signIn(userId) {
      const user = users.get(userId);
      if (user === undefined) throw new Error(`no GoTrue user ${userId}`);
      const sessionId = randomUUID();
      sessions.set(sessionId, userId);
      return sessionTokens(user, sessionId);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration for positive values (`876000h`, `2h45m`, `300ms`), in ms; null if invalid. */
export function parseGoDuration(text: string): number | null {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return null;
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(part[1]) * GO_UNITS[part[2]!]!;
  return total;
}
