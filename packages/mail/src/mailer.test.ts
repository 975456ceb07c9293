import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { captureLogger } from '@hashwatch/testing';
import { createMailer, type Mailer } from './mailer';
import { MailError } from './mail-error';

interface Received {
  envelope: SMTPServerSession['envelope'];
  raw: string;
}

const USER = 'hashwatch';
// Characters a URL must percent-encode, to show the password reaches the server decoded.
const PASSWORD = 'p@ss:w/rd#s3cret';
const SMTP_PASSWORD = encodeURIComponent(PASSWORD);

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A real SMTP server on a free port, plain text (no STARTTLS), that wants USER / PASSWORD. */
async function smtpServer(overrides: Partial<SMTPServerOptions> = {}): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ envelope: structuredClone(session.envelope), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
    ...overrides,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, received };
}

/** A TCP server that accepts connections and never says a word, as a hung mail server does. */
async function silentServer(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  }));
  return (server.address() as AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function mailerFor(smtpUrl: string, timeouts?: Parameters<typeof createMailer>[0]['timeouts']): { mailer: Mailer; lines: Record<string, unknown>[] } {
  const { logger, lines } = captureLogger('mail-test');
  const mailer = createMailer({ smtpUrl, from: 'Hashwatch <no-reply@hashwatch.test>', logger, ...(timeouts ? { timeouts } : {}) });
  closers.push(async () => mailer.close());
  return { mailer, lines };
}

async function failure(promise: Promise<unknown>): Promise<MailError> {
  const error: unknown = await promise.then(() => undefined, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(MailError);
  return error as MailError;
}

const RESET = { to: 'ann@example.com', subject: 'Reset your Hashwatch password', text: 'Open http://localhost:3000/reset?token=tok_secret123 within 30 minutes.' };

describe('createMailer', () => {
  it('delivers through an smtp:// URL with credentials: envelope, subject and body arrive as sent', async () => {
    const { port, received } = await smtpServer();
    const { mailer } = mailerFor(`smtp://${USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`);

    await mailer.send(RESET);

    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail!.envelope.mailFrom).toMatchObject({ address: 'no-reply@hashwatch.test' });
    expect(mail!.envelope.rcptTo.map((rcpt) => rcpt.address)).toEqual(['ann@example.com']);
    expect(mail!.raw).toMatch(/^Subject: Reset your Hashwatch password\r$/m);
    expect(mail!.raw).toMatch(/^From: Hashwatch <no-reply@hashwatch\.test>\r$/m);
    expect(mail!.raw).toMatch(/^To: ann@example\.com\r$/m);
    expect(mail!.raw).toContain('\r\n\r\nOpen http://localhost:3000/reset?token=tok_secret123 within 30 minutes.');
  });

  it('sends html as an alternative to the text', async () => {
    const { port, received } = await smtpServer({ authOptional: true });
    const { mailer } = mailerFor(`smtp://127.0.0.1:${port}`);

    await mailer.send({ ...RESET, html: '<p>Open <a href="http://localhost:3000/reset">the link</a></p>' });

    expect(received[0]!.raw).toMatch(/^Content-Type: multipart\/alternative;/m);
    expect(received[0]!.raw).toMatch(/^Content-Type: text\/plain; charset=utf-8\r$/m);
    expect(received[0]!.raw).toMatch(/^Content-Type: text\/html; charset=utf-8\r$/m);
    expect(received[0]!.raw).toContain('<a href="http://localhost:3000/reset">the link</a>');
  });

  it('logs a sent mail without its recipient, its content or the password of SMTP_URL', async () => {
    const { port } = await smtpServer();
    const { mailer, lines } = mailerFor(`smtp://${USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`);

    await mailer.send(RESET);

    expect(lines).toContainEqual(expect.objectContaining({ message: 'mail sent', server: `127.0.0.1:${port}` }));
    const logged = JSON.stringify(lines);
    for (const secret of [PASSWORD, SMTP_PASSWORD, 'tok_secret123', 'ann@example.com']) expect(logged).not.toContain(secret);
  });

  it('throws MailError rejected with the 550 when the server refuses the recipient', async () => {
    const { port, received } = await smtpServer({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      },
    });
    const { mailer, lines } = mailerFor(`smtp://${USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`);

    const error = await failure(mailer.send(RESET));

    expect(error).toMatchObject({ reason: 'rejected', responseCode: 550 });
    expect(error.message).toBe(`mail not sent through 127.0.0.1:${port}: the server refused the mail (550 RCPT TO)`);
    expect(received).toHaveLength(0);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'mail not sent', reason: 'rejected', responseCode: 550 }));
  });

  it('throws MailError auth, without the password in its message or the logs, when the server refuses the credentials', async () => {
    const { port } = await smtpServer();
    const wrong = encodeURIComponent('wrong:pa55word!');
    const { mailer, lines } = mailerFor(`smtp://${USER}:${wrong}@127.0.0.1:${port}`);

    const error = await failure(mailer.send(RESET));

    expect(error).toMatchObject({ reason: 'auth', responseCode: 535 });
    const everything = `${error.message} ${JSON.stringify(error)} ${JSON.stringify(lines)}`;
    for (const secret of ['wrong:pa55word!', wrong, 'pa55word', 'tok_secret123']) expect(everything).not.toContain(secret);
  });

  it('throws MailError unreachable at once when nothing listens on the port', async () => {
    const port = await closedPort();
    const { mailer } = mailerFor(`smtp://${USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`);

    const started = Date.now();
    const error = await failure(mailer.send(RESET));

    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(new RegExp(`^mail not sent through 127\\.0\\.0\\.1:${port}: could not reach the server`));
    expect(error.message).not.toContain(PASSWORD);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('throws MailError timeout within the greeting timeout when the server accepts but never greets', async () => {
    const port = await silentServer();
    const { mailer } = mailerFor(`smtp://127.0.0.1:${port}`, { greetingMs: 500 });

    const started = Date.now();
    const error = await failure(mailer.send(RESET));

    expect(error.reason).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives up on the whole send after sendMs even while each step is within its own timeout', async () => {
    const port = await silentServer();
    const { mailer } = mailerFor(`smtp://127.0.0.1:${port}`, { sendMs: 400 });

    const started = Date.now();
    const error = await failure(mailer.send(RESET));

    expect(error.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses to send once closed', async () => {
    const { port, received } = await smtpServer({ authOptional: true });
    const { mailer } = mailerFor(`smtp://127.0.0.1:${port}`);
    mailer.close();

    expect((await failure(mailer.send(RESET))).reason).toBe('failed');
    expect(received).toHaveLength(0);
  });

  it('throws MailError config for a URL that is not smtp: or smtps:, without echoing it', () => {
    const { logger } = captureLogger();
    expect(() => createMailer({ smtpUrl: 'http://u:hunter2@mail.test', from: 'a@b.test', logger })).toThrow(MailError);
    expect(() => createMailer({ smtpUrl: 'http://u:hunter2@mail.test', from: 'a@b.test', logger })).not.toThrow(/hunter2/);
  });
});
