import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { MailTransport } from './index.js';
import { OutboxTransport } from './outbox.js';

/** SMTP when SMTP_URL is set, else the outbox. Nodemailer is loaded only for SMTP (about 0.15 s of a start). */
export async function createMailTransport(
  config: Pick<Config, 'smtpUrl'>,
  log: FastifyBaseLogger,
): Promise<MailTransport> {
  if (config.smtpUrl === undefined) return new OutboxTransport();
  const { SmtpTransport } = await import('./smtp.js');
  const transport = new SmtpTransport({ url: config.smtpUrl });
  // The endpoint carries no credentials.
  log.info({ mail: transport.endpoint }, 'mail goes out over SMTP');
  return transport;
}
