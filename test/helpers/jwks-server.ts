import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** An asymmetric signing key as the identity provider holds it, with the public half as a JWK. */
export interface SigningKey {
  alg: 'ES256' | 'RS256';
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** The public key as PEM (SPKI): the material an algorithm-confusion attacker would use as an HMAC secret. */
  publicPem: string;
}

export async function makeSigningKey(
  alg: 'ES256' | 'RS256',
  kid = `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`,
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

export interface AsymmetricTokenOptions {
  sub?: string;
  email?: string;
  /** Seconds from now. */
  expiresIn?: number;
  claims?: JWTPayload;
  /** Header kid; defaults to the key's own. */
  kid?: string;
}

/** A token signed with an asymmetric key, `aud: authenticated`, like the identity provider's. */
export function signAsymmetric(key: SigningKey, options: AsymmetricTokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    role: 'authenticated',
    aud: 'authenticated',
    sub: options.sub ?? randomUUID(),
    exp: now + (options.expiresIn ?? 3600),
    ...options.claims,
  };
  if (options.email) payload.email = options.email;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
    .setIssuedAt(typeof options.claims?.iat === 'number' ? options.claims.iat : now)
    .sign(key.privateKey);
}

export interface JwksServer {
  url: string;
  /** How many times the key set was fetched. */
  readonly hits: number;
  /** The `traceparent` header of each fetch (undefined when it had none). */
  readonly traceparents: Array<string | undefined>;
  /** The `tracestate` header of each fetch (undefined when it had none). */
  readonly tracestates: Array<string | undefined>;
  /** Replace the published keys (key rotation). */
  publish(keys: SigningKey[]): void;
  close(): Promise<void>;
}

/** A JWKS endpoint on loopback, as the identity provider serves it; counts its fetches. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  let published = keys;
  let hits = 0;
  const traceparents: Array<string | undefined> = [];
  const tracestates: Array<string | undefined> = [];
  const server: Server = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    hits += 1;
    const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
    traceparents.push(first(request.headers.traceparent));
    tracestates.push(first(request.headers.tracestate));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: published.map((key) => key.publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get hits() {
      return hits;
    },
    traceparents,
    tracestates,
    publish(next) {
      published = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
