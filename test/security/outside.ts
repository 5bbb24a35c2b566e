import type { AddressInfo } from 'node:net';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { TestApp, TestAppOptions } from '../helpers/app.js';
import { startTestApp } from '../helpers/app.js';

/**
 * What the outside-attack suites share: the real app listening on a loopback port, and clients
 * that send exactly the bytes an attacker would (request targets the router may or may not
 * normalise, bodies that never finish, sockets that never speak).
 */

export interface ListeningApp extends TestApp {
  port: number;
}

export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  const t = await startTestApp(options);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return Object.assign(t, { port: (t.app.server.address() as AddressInfo).port });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 8 });

/** One request with the request target sent exactly as given (absolute-form, `#`, `;`, `..` untouched). */
export function sendRaw(
  port: number,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body;
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        agent: keepAlive,
        headers: {
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
            : {}),
          ...options.headers,
        },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A socket to the app, connected; errors (resets) are expected and ignored. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      socket.on('error', () => {});
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves when the server closes the socket; with what it wrote before closing. */
export function closedByServer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('close', () => resolve(text));
  });
}
