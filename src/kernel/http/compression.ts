import fastifyCompress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { hooksOf } from './route-hooks.js';

/**
 * Answers smaller than this go as they are: below about a kilobyte the headers outweigh what
 * compression saves, and the CPU is spent on every cheap answer (docs/decisions/0098).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Brotli first (smaller at a like cost at quality 4), then gzip; nothing else is offered. */
export const ANSWER_ENCODINGS = ['br', 'gzip'] as const;
type AnswerEncoding = (typeof ANSWER_ENCODINGS)[number];

/** JSON (the API and its documents), text and scripts (the docs UI): what compresses. */
const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/|application\/javascript)/;

/** The encoding a request accepts that we offer, best first; undefined: send it as it is. */
export function answerEncodingOf(request: FastifyRequest): AnswerEncoding | undefined {
  const accepted = request.headers['accept-encoding'];
  if (accepted === undefined) return undefined;
  return (negotiate(accepted, [...ANSWER_ENCODINGS]) ?? undefined) as AnswerEncoding | undefined;
}

/** A strong ETag names one byte sequence: once encoded, the answer's tag becomes weak (RFC 9110 §8.8.1). */
function weakenTagWhenEncoded(reply: FastifyReply): void {
  const etag = reply.getHeader('etag');
  const encoding = reply.getHeader('content-encoding');
  if (typeof etag === 'string' && !etag.startsWith('W/') && encoding !== undefined && encoding !== 'identity')
    reply.header('etag', `W/${etag}`);
}

/**
 * An answer the compressor would send as it is, told without asking it: nothing to send, or
 * surely below the threshold (a UTF-16 unit is at most 3 bytes of UTF-8).
 */
function surelyUncompressed(payload: unknown): boolean {
  if (payload === null || payload === undefined) return true;
  if (typeof payload === 'string') return payload.length * 3 < COMPRESSION_THRESHOLD_BYTES;
  return Buffer.isBuffer(payload) && payload.length < COMPRESSION_THRESHOLD_BYTES;
}

/**
 * Compresses answers by `Accept-Encoding` (@fastify/compress): JSON, text and the docs UI's
 * scripts of at least COMPRESSION_THRESHOLD_BYTES. Never what a route marks `compress: false`
 * (bytes that stream: stored objects), nor what is encoded already (the console's .br/.gz files).
 *
 * The library gives every route two hooks: one that hangs `reply.compress` on each reply (this
 * service never calls it) and its `onSend`, which reads four headers before it finds out that a
 * request with no `Accept-Encoding`, or a 31-byte answer, goes as it is. Each route keeps one
 * hook of ours instead, which asks the library only when it could compress, and marks the ETag
 * weak after it did (decision 0111: 1–2 µs of the cheap paths' 17).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  // Each route's hooks before the library's onRoute adds its own: what it added is the difference.
  const before = new WeakMap<RouteOptions, { onRequest: Set<unknown>; onSend: Set<unknown> }>();
  app.addHook('onRoute', (route: RouteOptions) => {
    before.set(route, { onRequest: new Set(hooksOf(route.onRequest)), onSend: new Set(hooksOf(route.onSend)) });
  });
  await app.register(fastifyCompress, {
    globalCompression: true,
    // Request bodies are not decoded: no route takes an encoded body (as before this plugin).
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: [...ANSWER_ENCODINGS],
    customTypes: COMPRESSIBLE,
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const earlier = before.get(route);
    if (earlier === undefined) throw new Error(`compression: ${route.method} ${route.url} was not seen first`);
    const onRequest = hooksOf(route.onRequest);
    const onSend = hooksOf(route.onSend);
    const compressor = onSend.filter((hook) => !earlier.onSend.has(hook));
    // `compress: false`: the library added nothing, and neither do we.
    if (compressor.length === 0) return;
    if (compressor.length !== 1) throw new Error(`compression: ${compressor.length} onSend hooks from the library`);
    const compress = compressor[0]!;
    route.onRequest = onRequest.filter((hook) => earlier.onRequest.has(hook));
    const gate: onSendHookHandler = function compressWhenItCould(request, reply, payload, done) {
      if (request.headers['accept-encoding'] === undefined || surelyUncompressed(payload)) return done(null, payload);
      const compressed = (error: Error | null, sent?: unknown) => {
        weakenTagWhenEncoded(reply);
        if (error) done(error);
        else done(null, sent);
      };
      return compress.call(this, request, reply, payload, compressed as Parameters<onSendHookHandler>[3]);
    };
    route.onSend = onSend.map((hook) => (hook === compress ? gate : hook));
  });
}

/**
 * A large answer that does not change while the process runs (the OpenAPI document), kept as
 * its text and, once asked for, its encoded bytes: compressed once, not on every request.
 */
export function keptAnswer(text: () => string): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  let identity: Buffer | undefined;
  const encoded = new Map<AnswerEncoding, Buffer>();
  const encode = (encoding: AnswerEncoding, body: Buffer) =>
    encoding === 'br'
      ? brotliCompressSync(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        })
      : gzipSync(body, { level: 9 });
  return (request, reply) => {
    identity ??= Buffer.from(text());
    const encoding = answerEncodingOf(request);
    reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
    if (encoding === undefined) return reply.send(identity);
    let body = encoded.get(encoding);
    if (body === undefined) {
      body = encode(encoding, identity);
      encoded.set(encoding, body);
    }
    return reply.header('content-encoding', encoding).send(body);
  };
}
