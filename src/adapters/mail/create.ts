import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { MailTransport } from './index.js';
import { OutboxTransport } from './outbox.js';
import { SmtpTransport } from './smtp.js';

/** SMTP when SMTP_URL is set, else the outbox. */
export function createMailTransport(config: Pick<Config, 'smtpUrl'>, log: FastifyBaseLogger): MailTransport {
  if (config.smtpUrl === undefined) return new OutboxTransport();
  const transport = new SmtpTransport({ url: config.smtpUrl });
  // The endpoint carries no credentials.
  log.info({ mail: transport.endpoint }, 'mail goes out over SMTP');
  return transport;
}
