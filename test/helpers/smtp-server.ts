import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/**
 * A real SMTP server on loopback (the `smtp-server` package) that requires a login, keeps every
 * message it accepted (raw, and parsed into headers and text/html parts), and refuses
 * recipients as a test tells it to. Plain connection without STARTTLS: what is tested is our
 * SMTP conversation, not TLS.
 */

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** Who logged in for it. */
  user: string | undefined;
  raw: string;
  /** Header names lowercased, folded lines joined; a repeated header keeps its first value. */
  headers: Record<string, string>;
  text: string;
  html: string;
}

/** A refusal the server answers RCPT TO with (e.g. 550 no such user, 451 try later). */
export interface SmtpRefusal {
  code: number;
  message: string;
}

export interface SmtpTestServer {
  port: number;
  /** smtp://user:password@127.0.0.1:port with the credentials percent-encoded. */
  url: string;
  received: ReceivedMail[];
  /** Connections opened so far. */
  connections: number;
  /** Decides each recipient: a refusal, or undefined to accept. */
  refuse: (recipient: string) => SmtpRefusal | undefined;
  /**
   * Awaited once a message's data has arrived, before the server answers it: a test makes the
   * server slow by returning a promise it settles later. Answers at once by default.
   */
  beforeAnswer: () => Promise<void>;
  close(): Promise<void>;
}

export interface SmtpTestServerOptions {
  user?: string;
  password?: string;
  /** Echo the attempted password in the refusal of a failed login (a careless server). */
  echoPasswordOnFailedLogin?: boolean;
}

function unfoldHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function decodePart(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Headers of the message, and its text and html parts (multipart/alternative or a single part). */
export function parseMail(raw: string): Pick<ReceivedMail, 'headers' | 'text' | 'html'> {
  const split = raw.indexOf('\r\n\r\n');
  const headers = unfoldHeaders(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const parts = { text: '', html: '' };
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1];
  const pieces = boundary === undefined ? [raw] : body.split(`--${boundary}`).slice(1, -1);
  for (const piece of pieces) {
    const text = boundary === undefined ? piece : piece.replace(/^\r\n/, '');
    const at = text.indexOf('\r\n\r\n');
    const partHeaders = unfoldHeaders(text.slice(0, at));
    const content = decodePart(partHeaders, text.slice(at + 4).replace(/\r\n$/, ''));
    if ((partHeaders['content-type'] ?? '').startsWith('text/html')) parts.html = content;
    else if ((partHeaders['content-type'] ?? '').startsWith('text/plain')) parts.text = content;
  }
  return { headers, ...parts };
}

export async function startSmtpServer(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'p@ss:w/rd 50%-secret';
  const state: SmtpTestServer = {
    port: 0,
    url: '',
    received: [],
    connections: 0,
    refuse: () => undefined,
    beforeAnswer: async () => {},
    close: async () => {},
  };
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    // Our pooled client keeps connections open; a closing test server drops them soon.
    closeTimeout: 200,
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      const detail = options.echoPasswordOnFailedLogin ? ` for ${auth.username}:${auth.password}` : '';
      return callback(Object.assign(new Error(`Authentication failed${detail}`), { responseCode: 535 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const refusal = state.refuse(address.address);
      if (refusal === undefined) return callback();
      return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelope = {
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        };
        void state.beforeAnswer().then(() => {
          state.received.push({ envelope, user: session.user as string | undefined, raw, ...parseMail(raw) });
          callback(null, `Ok: queued as Q${state.received.length}`);
        });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  state.port = (server.server.address() as AddressInfo).port;
  state.url = `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${state.port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
