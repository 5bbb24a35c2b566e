import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { MailTransport } from './index.js';
import { OutboxTransport } from './outbox.js';

/** SMTP when SMTP_URL is set, else the outbox. */
export function createMailTransport(config: Pick<Config, 'smtpUrl'>, _log: FastifyBaseLogger): MailTransport {
  return new OutboxTransport();
}
