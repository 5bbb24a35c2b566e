/**
 * What the service asks of mail delivery: hand over one rendered message. The service owns the
 * queue (email_messages), the rate, retries and suppression; a transport only delivers.
 * `smtp` (SMTP_URL set) sends through nodemailer; `outbox` (the embedded default) sends nothing:
 * the queued row is the record staff read, so a developer sees exactly what would go out.
 */

export type MailTransportKind = 'smtp' | 'outbox';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post, …). */
  headers: Record<string, string>;
  /** Our Message-ID (`<id@domain>`), the same on every attempt, so a receiver can tell a retry from a new message. */
  messageId: string;
}

export interface MailTransport {
  readonly kind: MailTransportKind;
  /** Resolves once the transport accepted the message; throws MailTransportError when it did not. */
  send(message: MailMessage): Promise<{ transportMessageId: string }>;
  close(): Promise<void>;
}

/**
 * The transport did not take the message. `permanent`: the receiver refused it for good (5xx:
 * no such mailbox), so retrying is pointless; otherwise (4xx, network, timeout) a later attempt
 * may succeed. Never carries credentials.
 */
export class MailTransportError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly responseCode: number | null = null,
  ) {
    super(message);
    this.name = 'MailTransportError';
  }
}
