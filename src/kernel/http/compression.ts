import fastifyCompress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

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
const weakenTagWhenEncoded: onSendHookHandler = (_request, reply, payload, done) => {
  const etag = reply.getHeader('etag');
  const encoding = reply.getHeader('content-encoding');
  if (typeof etag === 'string' && !etag.startsWith('W/') && encoding !== undefined && encoding !== 'identity')
    reply.header('etag', `W/${etag}`);
  done(null, payload);
};

/**
 * Compresses answers by `Accept-Encoding` (@fastify/compress): JSON, text and the docs UI's
 * scripts of at least COMPRESSION_THRESHOLD_BYTES. Never what a route marks `compress: false`
 * (bytes that stream: stored objects), nor what is encoded already (the console's .br/.gz files).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    globalCompression: true,
    // Request bodies are not decoded: no route takes an encoded body (as before this plugin).
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: [...ANSWER_ENCODINGS],
    customTypes: COMPRESSIBLE,
  });
  // After the compressor's own hook (added to each route the same way, earlier): sees its encoding.
  app.addHook('onRoute', (route: RouteOptions) => {
    const hooks = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...hooks, weakenTagWhenEncoded];
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
