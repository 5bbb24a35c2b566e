import { connect, type Socket } from 'node:net';
import type autocannon from 'autocannon';

/** An answer's status, or why there was none. */
export type Answer = number | 'socket error' | 'timeout';

/** One request handed to the pool: its bytes, when it must be answered by, and who hears the answer. */
interface Pending {
  bytes: string;
  deadline: number;
  done: (answer: Answer) => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');
/** Expired requests are looked for this often: one timer for all of them, not one per request. */
const SWEEP_EVERY_MS = 100;

/** What a response head says about the body after it. */
function bodyOf(status: number, head: string): { length: number } | 'chunked' | 'until close' {
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { length: 0 };
  const lower = head.toLowerCase();
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) return 'chunked';
  const length = /\r\ncontent-length:\s*(\d+)/.exec(lower);
  return length === null ? 'until close' : { length: Number(length[1]) };
}

/**
 * Reads HTTP/1.1 responses off one keep-alive socket, one at a time (no pipelining): the status
 * from the head, the body skipped by its length or its chunks. The load generator must cost far
 * less than the service it drives on the same two cores; node:http's parser, request objects
 * and per-request timers cost it about 0.3 of a core at 2,300 requests a second.
 */
class ResponseReader {
  #buffered: Buffer = Buffer.alloc(0);
  #status = 0;
  #body: { length: number } | 'chunked' | 'until close' | undefined;
  /** Bytes of a length-delimited body still to come. */
  #remaining = 0;
  closeAfter = false;

  /** Takes bytes; answers the status once a whole response has arrived, 'invalid' on bytes that are not one. */
  take(chunk: Buffer): number | 'invalid' | undefined {
    if (this.#body === undefined) {
      this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
      const end = this.#buffered.indexOf(HEAD_END);
      if (end === -1) return undefined;
      const head = this.#buffered.toString('latin1', 0, end);
      if (!head.startsWith('HTTP/1.')) return 'invalid';
      this.#status = Number(head.slice(9, 12));
      this.#body = bodyOf(this.#status, head);
      this.closeAfter = /\r\nconnection:\s*close/i.test(head);
      const rest = this.#buffered.subarray(end + HEAD_END.length);
      this.#buffered = Buffer.alloc(0);
      if (this.#body === 'until close') return undefined;
      if (this.#body === 'chunked') return this.#takeChunks(rest);
      this.#remaining = this.#body.length;
      return this.#takeBody(rest);
    }
    if (this.#body === 'until close') return undefined;
    return this.#body === 'chunked' ? this.#takeChunks(chunk) : this.#takeBody(chunk);
  }

  /** The socket ended: a close-delimited body is complete then, any other unfinished one is not. */
  ended(): number | undefined {
    return this.#body === 'until close' ? this.#status : undefined;
  }

  #takeBody(bytes: Buffer): number | 'invalid' | undefined {
    this.#remaining -= bytes.length;
    if (this.#remaining > 0) return undefined;
    // A byte past the body is a response nobody asked for.
    return this.#remaining < 0 ? 'invalid' : this.#finish();
  }

  #takeChunks(bytes: Buffer): number | 'invalid' | undefined {
    this.#buffered = this.#buffered.length === 0 ? bytes : Buffer.concat([this.#buffered, bytes]);
    for (;;) {
      const lineEnd = this.#buffered.indexOf(LINE_END);
      if (lineEnd === -1) return undefined;
      const size = Number.parseInt(this.#buffered.toString('latin1', 0, lineEnd), 16);
      if (Number.isNaN(size)) return 'invalid';
      if (size === 0) {
        // The last chunk, then trailers (usually none) and an empty line.
        const end = this.#buffered.indexOf(HEAD_END, Math.max(lineEnd - 2, 0));
        if (end === -1) return undefined;
        return end + HEAD_END.length === this.#buffered.length ? this.#finish() : 'invalid';
      }
      const next = lineEnd + LINE_END.length + size + LINE_END.length;
      if (this.#buffered.length < next) return undefined;
      this.#buffered = this.#buffered.subarray(next);
    }
  }

  #finish(): number {
    const status = this.#status;
    this.#buffered = Buffer.alloc(0);
    this.#body = undefined;
    this.#remaining = 0;
    return status;
  }
}

/** One keep-alive connection carrying one request at a time. */
class Connection {
  readonly #socket: Socket;
  readonly #reader = new ResponseReader();
  #connected = false;
  #closed = false;
  current: Pending | undefined;

  constructor(
    host: string,
    port: number,
    private readonly pool: { idle(connection: Connection): void; closed(connection: Connection): void },
  ) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#socket.on('connect', () => {
      this.#connected = true;
      if (this.current === undefined) pool.idle(this);
      else this.#socket.write(this.current.bytes);
    });
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('end', () => this.#close(this.#reader.ended() ?? 'socket error'));
    this.#socket.on('error', () => this.#close('socket error'));
    this.#socket.on('close', () => this.#close('socket error'));
  }

  send(pending: Pending): void {
    this.current = pending;
    if (this.#connected) this.#socket.write(pending.bytes);
  }

  /** Gives up on the request in flight (its deadline passed): the connection cannot be reused. */
  abandon(): void {
    this.#close('timeout');
  }

  #onData(chunk: Buffer): void {
    const pending = this.current;
    if (pending === undefined) {
      this.#close('socket error');
      return;
    }
    const answer = this.#reader.take(chunk);
    if (answer === undefined) return;
    if (answer === 'invalid') {
      this.#close('socket error');
      return;
    }
    this.current = undefined;
    pending.done(answer);
    if (this.#reader.closeAfter) this.#close('socket error');
    else this.pool.idle(this);
  }

  #close(answer: Answer): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
    const pending = this.current;
    this.current = undefined;
    this.pool.closed(this);
    pending?.done(answer);
  }
}

/**
 * Up to `maxConnections` keep-alive connections to one server. A request goes to the connection
 * freed last (the others may idle out), to a new one while there are fewer than the maximum, or
 * else waits its turn; one past its deadline, waiting or in flight, is answered 'timeout'.
 */
export class Http1Pool {
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  readonly #waiting: Pending[] = [];
  readonly #sweeper: NodeJS.Timeout;
  readonly #pool = {
    idle: (connection: Connection) => this.#onIdle(connection),
    closed: (connection: Connection) => this.#onClosed(connection),
  };
  readonly #encoded = new WeakMap<autocannon.RequestParams, string>();
  #destroyed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly maxConnections: number,
  ) {
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_EVERY_MS);
  }

  /** Sends a request; `done` hears its status, or why there is none, exactly once. */
  request(params: autocannon.RequestParams, deadline: number, done: (answer: Answer) => void): void {
    const pending: Pending = { bytes: this.#encode(params), deadline, done };
    const connection = this.#idle.pop();
    if (connection !== undefined) connection.send(pending);
    else if (this.#all.size < this.maxConnections) this.#open().send(pending);
    else this.#waiting.push(pending);
  }

  /** Closes every connection; requests still waiting or in flight are answered 'socket error'. */
  destroy(): void {
    this.#destroyed = true;
    clearInterval(this.#sweeper);
    for (const pending of this.#waiting.splice(0)) pending.done('socket error');
    for (const connection of [...this.#all]) connection.abandon();
  }

  #open(): Connection {
    const connection = new Connection(this.host, this.port, this.#pool);
    this.#all.add(connection);
    return connection;
  }

  #onIdle(connection: Connection): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#idle.push(connection);
    else connection.send(next);
  }

  #onClosed(connection: Connection): void {
    this.#all.delete(connection);
    const at = this.#idle.indexOf(connection);
    if (at !== -1) this.#idle.splice(at, 1);
    // A waiting request takes the closed connection's place on a new one.
    if (this.#destroyed) return;
    const next = this.#waiting.shift();
    if (next !== undefined) this.#open().send(next);
  }

  #sweep(): void {
    const now = performance.now();
    // Requests wait in the order they were due, so the expired ones are at the front.
    while (this.#waiting.length > 0 && this.#waiting[0]!.deadline <= now) this.#waiting.shift()!.done('timeout');
    for (const connection of this.#all) {
      if (connection.current !== undefined && connection.current.deadline <= now) connection.abandon();
    }
  }

  #encode(params: autocannon.RequestParams): string {
    const known = this.#encoded.get(params);
    if (known !== undefined) return known;
    let text = `${params.method ?? 'GET'} ${params.path ?? '/'} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n`;
    for (const [name, value] of Object.entries(params.headers ?? {})) text += `${name}: ${value}\r\n`;
    const body = params.body === undefined ? '' : String(params.body);
    if (params.body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n`;
    text += `\r\n${body}`;
    this.#encoded.set(params, text);
    return text;
  }
}
