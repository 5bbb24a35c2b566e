import createClient, { type Client, type HeadersOptions, type Middleware } from 'openapi-fetch';
import { IDEMPOTENCY_KEY_OPERATIONS, OPEN_OPERATIONS } from './operations.js';
import { type Fetch, type RetryOptions, retryingFetch } from './retry.js';
import type { paths } from './schema.js';

/**
 * The caller's current access token, asked before every call that needs one: return a fresh token
 * after a refresh, or undefined to call without one.
 */
export type TokenProvider = () => string | undefined | Promise<string | undefined>;

export interface PlatformClientOptions {
  /** Where the API is served: `https://api.example.com` (no path beyond the host's own prefix). */
  baseUrl: string;
  token?: TokenProvider;
  /** The transport (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every call. */
  headers?: HeadersOptions;
  /** Sending again after 429 and 503 with `Retry-After` (idempotent calls only); `false` turns it off. */
  retry?: RetryOptions | false;
}

/** openapi-fetch's client over the API's generated types: `client.GET('/v1/admin/users', { params })`. */
export type PlatformClient = Client<paths, 'application/json'>;

const operationKey = (request: Request, schemaPath: string) => `${request.method} ${schemaPath}`;

/** `Authorization: Bearer <token>` on every call that takes a token, unless the call set its own. */
function bearerToken(token: TokenProvider): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (OPEN_OPERATIONS.has(operationKey(request, schemaPath)) || request.headers.has('authorization')) return;
      const value = await token();
      if (value !== undefined && value !== '') request.headers.set('authorization', `Bearer ${value}`);
    },
  };
}

/**
 * A fresh `Idempotency-Key` for each call of an operation that takes one, unless the caller gave it:
 * the retries of that call (retry.ts) send the same request, so the same key.
 */
const idempotencyKey: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENCY_KEY_OPERATIONS.has(operationKey(request, schemaPath)) && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
  },
};

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  // Looked up at each call, so a fetch replaced after the client was made is the one used.
  const transport: Fetch = options.fetch ?? ((request, init) => globalThis.fetch(request, init));
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    fetch: options.retry === false ? transport : retryingFetch(transport, options.retry),
  });
  if (options.token !== undefined) client.use(bearerToken(options.token));
  client.use(idempotencyKey);
  return client;
}
