import nodemailer, { type NodemailerError, type SMTPPoolOptions, type Transporter } from 'nodemailer';
import type { Attributes } from '@opentelemetry/api';
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from '@opentelemetry/semantic-conventions';
import { inClientSpan, PEER_SERVICE } from '../../lib/spans.js';
import { MailTransportError, type MailMessage, type MailTransport } from './index.js';

/**
 * Production mail delivery: SMTP through nodemailer's connection pool. The URL is
 * `smtp://user:password@host:port` (STARTTLS when the server offers it; port 587 by default) or
 * `smtps://…` (TLS from the first byte; port 465 by default), with the credentials
 * percent-encoded. Retries, pacing and suppression belong to the dispatcher; this only delivers
 * one message and says whether trying again could help.
 */

export interface SmtpTransportOptions {
  url: string;
  /** Budget of one whole delivery (connect, greeting, envelope, data); past it the delivery is aborted. */
  sendTimeoutMs?: number;
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  maxConnections?: number;
}

interface SmtpEndpoint {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
}

const DEFAULTS = {
  sendTimeoutMs: 60_000,
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 10_000,
  socketTimeoutMs: 30_000,
  maxConnections: 4,
};
const MAX_ERROR_LENGTH = 1_000;

export function parseSmtpUrl(raw: string): SmtpEndpoint {
  const url = new URL(raw);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error('SMTP_URL must start with smtp:// or smtps://');
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
  };
}

/**
 * Removes every form in which the password could show up in a message: as written in the URL,
 * decoded, and base64-encoded as AUTH LOGIN and AUTH PLAIN send it (a server may echo a command).
 */
export function credentialRedactor(raw: string): (text: string) => string {
  const url = new URL(raw);
  const { user = '', password } = parseSmtpUrl(raw);
  if (password === undefined) return (text) => text;
  const forms = new Set([
    password,
    url.password,
    encodeURIComponent(password),
    Buffer.from(password).toString('base64'),
    Buffer.from(`\0${user}\0${password}`).toString('base64'),
    Buffer.from(`${user}\0${user}\0${password}`).toString('base64'),
  ]);
  // Longest first, so a form containing another is removed whole.
  const ordered = [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((out, form) => out.split(form).join('[redacted]'), text);
}

/**
 * Whether trying the same message again may succeed. A 5xx reply is the receiver's final no
 * (nodemailer's `permanent` flag already leaves out 503, a session out of step, not a refusal).
 * Failed authentication is the exception: it says our configuration is wrong, not this message,
 * so the message waits for retries instead of being thrown away with the whole queue.
 */
function isPermanent(error: NodemailerError): boolean {
  if (error.code === 'EAUTH' || error.code === 'ENOAUTH') return false;
  if (error.permanent !== undefined) return error.permanent;
  return (
    error.responseCode !== undefined &&
    error.responseCode >= 500 &&
    error.responseCode < 600 &&
    error.responseCode !== 503
  );
}

export class SmtpTransport implements MailTransport {
  readonly kind = 'smtp' as const;
  /** Where the mail goes, without credentials: safe to log. */
  readonly endpoint: string;
  readonly #transporter: Transporter;
  readonly #redact: (text: string) => string;
  /** Who each send's span names as its peer. */
  readonly #peer: Attributes;
  readonly #sendTimeoutMs: number;

  constructor(options: SmtpTransportOptions) {
    const settings = { ...DEFAULTS, ...options };
    const endpoint = parseSmtpUrl(options.url);
    this.endpoint = `${endpoint.secure ? 'smtps' : 'smtp'}://${endpoint.host}:${endpoint.port}`;
    this.#redact = credentialRedactor(options.url);
    this.#peer = { [PEER_SERVICE]: 'smtp', [ATTR_SERVER_ADDRESS]: endpoint.host, [ATTR_SERVER_PORT]: endpoint.port };
    this.#sendTimeoutMs = settings.sendTimeoutMs;
    const pool: SMTPPoolOptions & { pool: true } = {
      pool: true,
      host: endpoint.host,
      port: endpoint.port,
      secure: endpoint.secure,
      ...(endpoint.user !== undefined ? { auth: { user: endpoint.user, pass: endpoint.password ?? '' } } : {}),
      maxConnections: settings.maxConnections,
      // A message whose connection drops mid-delivery fails to the dispatcher, which owns the
      // retry policy (backoff, attempt count); a silent requeue here would bypass it.
      maxRequeues: 0,
      connectionTimeout: settings.connectionTimeoutMs,
      greetingTimeout: settings.greetingTimeoutMs,
      socketTimeout: settings.socketTimeoutMs,
      // Nodemailer's own logging would print the SMTP conversation, AUTH included.
      logger: false,
      debug: false,
    };
    this.#transporter = nodemailer.createTransport(pool);
  }

  async send(message: MailMessage): Promise<{ transportMessageId: string }> {
    try {
      // No trace header travels in the message: mail is no request of this trace's.
      const info = await inClientSpan('smtp send', this.#peer, () =>
        this.#transporter.sendMail({
          from: message.from,
          to: message.to,
          subject: message.subject,
          html: message.html,
          text: message.text,
          headers: message.headers,
          messageId: message.messageId,
          signal: AbortSignal.timeout(this.#sendTimeoutMs),
        }),
      );
      // The server's final reply ("250 2.0.0 Ok: queued as 4F3…") names its queue entry: what an
      // operator greps the mail server's logs for.
      const response =
        typeof info.response === 'string' && info.response !== '' ? info.response : String(info.messageId);
      return { transportMessageId: this.#redact(response).slice(0, 500) };
    } catch (thrown) {
      throw this.#transportError(thrown);
    }
  }

  async close(): Promise<void> {
    this.#transporter.close();
  }

  #transportError(thrown: unknown): MailTransportError {
    const error = (thrown instanceof Error ? thrown : new Error(String(thrown))) as NodemailerError;
    const code = error.code === undefined ? '' : ` (${error.code})`;
    const text = this.#redact(`${error.message}${code}`).slice(0, MAX_ERROR_LENGTH);
    return new MailTransportError(text, isPermanent(error), error.responseCode ?? null);
  }
}
