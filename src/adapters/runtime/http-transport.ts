import http from 'node:http';
import https from 'node:https';

/**
 * One HTTP exchange with hard limits, on node:http because fetch has no connect timeout of its
 * own: `connectTimeoutMs` bounds reaching the server (a dead host fails fast), `timeoutMs`
 * bounds the whole attempt from sending to the last byte of the answer.
 */

export interface HttpExchange {
  method: string;
  /** Where to connect: protocol, host and port (its path is not used). */
  origin: URL;
  /**
   * The request target as built, sent unchanged: a URL object would fold `%2E%2E` segments
   * (an encoded id of "..") into "go up".
   */
  path: string;
  headers: Record<string, string>;
  body?: string;
  connectTimeoutMs: number;
  timeoutMs: number;
  agent: http.Agent;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

export type TransportFailureKind = 'connect_timeout' | 'timeout' | 'network' | 'too_large';

/** The exchange failed before a whole answer arrived. Messages name no header and no key. */
export class TransportFailure extends Error {
  constructor(
    readonly kind: TransportFailureKind,
    message: string,
    /** The request went out on a kept-alive socket the server may have closed meanwhile. */
    readonly reusedSocket = false,
    readonly code: string | undefined = undefined,
  ) {
    super(message);
    this.name = 'TransportFailure';
  }
}

/** Answers larger than this are refused: no runtime answer is near it, and memory is ours. */
export const MAX_ANSWER_BYTES = 8 * 1_048_576;

export function exchange(request: HttpExchange): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const transport = request.origin.protocol === 'https:' ? https : http;
    const timers: NodeJS.Timeout[] = [];
    let settled = false;
    const settle = (outcome: HttpAnswer | TransportFailure) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (outcome instanceof TransportFailure) reject(outcome);
      else resolve(outcome);
    };
    // Our own limits end the exchange: settle first, then tear the socket down.
    const abandon = (failure: TransportFailure) => {
      settle(failure);
      outgoing.destroy();
    };

    const outgoing = transport.request({
      protocol: request.origin.protocol,
      hostname: request.origin.hostname.replace(/^\[|\]$/g, ''),
      port: request.origin.port,
      path: request.path,
      method: request.method,
      headers:
        request.body === undefined
          ? request.headers
          : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      agent: request.agent,
    });

    timers.push(
      setTimeout(
        () => abandon(new TransportFailure('timeout', `no answer within ${request.timeoutMs} ms`)),
        request.timeoutMs,
      ),
    );
    outgoing.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(
        () =>
          abandon(new TransportFailure('connect_timeout', `could not connect within ${request.connectTimeoutMs} ms`)),
        request.connectTimeoutMs,
      );
      timers.push(connectTimer);
      socket.once('connect', () => clearTimeout(connectTimer));
    });

    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES)
          abandon(new TransportFailure('too_large', `the answer exceeds ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      incoming.on('end', () =>
        settle({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      incoming.on('error', (error) => settle(networkFailure(error, outgoing.reusedSocket)));
    });
    outgoing.on('error', (error) => settle(networkFailure(error, outgoing.reusedSocket)));
    outgoing.on('close', () =>
      settle(new TransportFailure('network', 'the connection closed before the answer was complete')),
    );
    outgoing.end(request.body);
  });
}

function networkFailure(error: Error & { code?: string }, reusedSocket: boolean): TransportFailure {
  return new TransportFailure('network', error.message || error.code || 'network error', reusedSocket, error.code);
}
