import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMailTransport } from '../../src/adapters/mail/create.js';
import { MailTransportError, type MailMessage } from '../../src/adapters/mail/index.js';
import { OutboxTransport } from '../../src/adapters/mail/outbox.js';
import { credentialRedactor, parseSmtpUrl, SmtpTransport } from '../../src/adapters/mail/smtp.js';
import { captureLog } from '../helpers/captured-log.js';
import { closedPort } from '../helpers/ports.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-server.js';

/**
 * The SMTP adapter against a real SMTP server on loopback: what arrives (envelope, headers,
 * both bodies), how each kind of failure is classified (the receiver's 5xx is final; 4xx,
 * refused connections and timeouts may pass later), and that the password never shows.
 */

const PASSWORD = 'p@ss:w/rd 50%-secret';
let server: SmtpTestServer;
const transports: SmtpTransport[] = [];

beforeAll(async () => {
  server = await startSmtpServer({ user: 'mailer', password: PASSWORD, echoPasswordOnFailedLogin: true });
});
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  server.refuse = () => undefined;
  server.received.length = 0;
});
afterAll(async () => {
  await server.close();
});

function transportFor(url = server.url, options: Partial<ConstructorParameters<typeof SmtpTransport>[0]> = {}) {
  const transport = new SmtpTransport({ url, ...options });
  transports.push(transport);
  return transport;
}

const message = (overrides: Partial<MailMessage> = {}): MailMessage => ({
  from: 'Platform <no-reply@platform.test>',
  to: 'player@example.test',
  subject: 'Your weekly games',
  html: '<p>Hello <b>player</b> &amp; friends</p>',
  text: 'Hello player & friends',
  headers: {
    'List-Unsubscribe':
      '<https://platform.test/v1/public/email/unsubscribe?token=u1.abc.def>, <mailto:unsubscribe@platform.test?subject=unsubscribe>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
  messageId: '<7d1c0c1e-4a57-4ad4-9f0e-2b4c8f0d7a11@platform.test>',
  ...overrides,
});

async function failureOf(call: Promise<unknown>): Promise<MailTransportError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MailTransportError);
  return error as MailTransportError;
}

function expectNoPassword(text: string) {
  for (const form of [
    PASSWORD,
    encodeURIComponent(PASSWORD),
    Buffer.from(PASSWORD).toString('base64'),
    Buffer.from(`\0mailer\0${PASSWORD}`).toString('base64'),
  ]) {
    expect(text).not.toContain(form);
  }
}

describe('delivery', () => {
  it('logs in and delivers From, To, Subject, Message-ID, the extra headers and both bodies', async () => {
    const result = await transportFor().send(message());
    expect(server.received).toHaveLength(1);
    const mail = server.received[0]!;
    expect(mail.user).toBe('mailer');
    expect(mail.envelope).toEqual({ from: 'no-reply@platform.test', to: ['player@example.test'] });
    expect(mail.headers).toMatchObject({
      from: 'Platform <no-reply@platform.test>',
      to: 'player@example.test',
      subject: 'Your weekly games',
      'message-id': '<7d1c0c1e-4a57-4ad4-9f0e-2b4c8f0d7a11@platform.test>',
      'list-unsubscribe':
        '<https://platform.test/v1/public/email/unsubscribe?token=u1.abc.def>, <mailto:unsubscribe@platform.test?subject=unsubscribe>',
      'list-unsubscribe-post': 'List-Unsubscribe=One-Click',
    });
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(mail.text).toBe('Hello player & friends');
    expect(mail.html).toBe('<p>Hello <b>player</b> &amp; friends</p>');
    // The server's final reply, naming its queue entry.
    expect(result.transportMessageId).toMatch(/^250 .*Ok: queued as Q1/);
  });

  it('keeps a long header value intact (folded at most, never cut) and sends non-ASCII text', async () => {
    const url = `https://platform.test/v1/public/email/unsubscribe?token=u1.${'x'.repeat(150)}.${'y'.repeat(43)}`;
    await transportFor().send(
      message({
        headers: { 'List-Unsubscribe': `<${url}>` },
        subject: 'Grüße, Spieler',
        text: 'Schöne Grüße',
        html: '<p>Schöne Grüße</p>',
      }),
    );
    const mail = server.received[0]!;
    expect(mail.headers['list-unsubscribe']!.replace(/\s+/g, '')).toBe(`<${url}>`);
    expect(mail.text).toBe('Schöne Grüße');
    expect(mail.html).toBe('<p>Schöne Grüße</p>');
  });

  it('pools: several messages in turn go over one connection', async () => {
    const transport = transportFor();
    const before = server.connections;
    for (let i = 0; i < 3; i += 1)
      await transport.send(message({ to: `p${i}@example.test`, messageId: `<m${i}@platform.test>` }));
    expect(server.received.map((mail) => mail.envelope.to[0])).toEqual([
      'p0@example.test',
      'p1@example.test',
      'p2@example.test',
    ]);
    expect(server.connections - before).toBe(1);
  });
});

describe('failures', () => {
  it("a 5xx refusal (550 no such mailbox) is permanent, with the code and the server's words", async () => {
    server.refuse = (to) => (to === 'gone@example.test' ? { code: 550, message: 'No such user here' } : undefined);
    const error = await failureOf(transportFor().send(message({ to: 'gone@example.test' })));
    expect({ permanent: error.permanent, code: error.responseCode }).toEqual({ permanent: true, code: 550 });
    expect(error.message).toContain('550 No such user here');
    expect(server.received).toHaveLength(0);
  });

  it('a 4xx refusal (451 try later) is transient', async () => {
    server.refuse = () => ({ code: 451, message: 'Greylisted, try again later' });
    const error = await failureOf(transportFor().send(message()));
    expect({ permanent: error.permanent, code: error.responseCode }).toEqual({ permanent: false, code: 451 });
    expect(error.message).toContain('451 Greylisted');
  });

  it('no server (connection refused) is transient, without a response code', async () => {
    const error = await failureOf(
      transportFor(`smtp://mailer:${encodeURIComponent(PASSWORD)}@127.0.0.1:${await closedPort()}`).send(message()),
    );
    expect({ permanent: error.permanent, code: error.responseCode }).toEqual({ permanent: false, code: null });
    expect(error.message).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    expectNoPassword(error.message);
  });

  it('a server that accepts the connection but never greets times out, transient', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const error = await failureOf(
        transportFor(`smtp://mailer:x@127.0.0.1:${port}`, { greetingTimeoutMs: 150 }).send(message()),
      );
      expect(error.permanent).toBe(false);
      expect(error.message).toMatch(/ETIMEDOUT|[Gg]reeting/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('a failed login is transient (our configuration, not the message), and the password the server echoes is removed', async () => {
    const wrong = `${PASSWORD}-wrong`;
    const error = await failureOf(
      transportFor(`smtp://mailer:${encodeURIComponent(wrong)}@127.0.0.1:${server.port}`).send(message()),
    );
    expect({ permanent: error.permanent, code: error.responseCode }).toEqual({ permanent: false, code: 535 });
    // The server put "mailer:<password>" in its answer; what reaches us has it removed.
    expect(error.message).toContain('Authentication failed for mailer:[redacted]');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(encodeURIComponent(wrong));
    expect(server.received).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('reads host, port, TLS mode and percent-encoded credentials from the URL', () => {
    expect(parseSmtpUrl(server.url)).toEqual({
      host: '127.0.0.1',
      port: server.port,
      secure: false,
      user: 'mailer',
      password: PASSWORD,
    });
    expect(parseSmtpUrl('smtps://relay.example.test')).toEqual({
      host: 'relay.example.test',
      port: 465,
      secure: true,
      user: undefined,
      password: undefined,
    });
    expect(parseSmtpUrl('smtp://u@relay.example.test')).toMatchObject({
      port: 587,
      secure: false,
      user: 'u',
      password: undefined,
    });
  });

  it('the redactor removes the password in every form it travels in', () => {
    const redact = credentialRedactor(server.url);
    const forms = [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      Buffer.from(PASSWORD).toString('base64'),
      Buffer.from(`\0mailer\0${PASSWORD}`).toString('base64'),
    ];
    const redacted = redact(`answer: ${forms.join(' | ')}`);
    expect(redacted).toBe('answer: [redacted] | [redacted] | [redacted] | [redacted]');
    expect(credentialRedactor('smtp://relay.example.test:25')('untouched')).toBe('untouched');
  });

  it('createMailTransport picks SMTP when SMTP_URL is set, logging the endpoint without credentials; else the outbox', async () => {
    const captured = captureLog();
    const smtp = await createMailTransport({ smtpUrl: server.url }, captured.log);
    transports.push(smtp as SmtpTransport);
    expect(smtp).toBeInstanceOf(SmtpTransport);
    expect((smtp as SmtpTransport).endpoint).toBe(`smtp://127.0.0.1:${server.port}`);
    await smtp.send(message());
    expect(server.received).toHaveLength(1);
    expect(captured.text()).toContain(`smtp://127.0.0.1:${server.port}`);
    expectNoPassword(captured.text());
    expect(await createMailTransport({ smtpUrl: undefined }, captured.log)).toBeInstanceOf(OutboxTransport);
  });
});
