import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type EmailAddress } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Logger } from '@hashwatch/logger';

/** One mail as the inbox keeps it. */
export interface InboxMail {
  receivedAt: string;
  /** The From header as written (`Hashwatch <no-reply@localhost>`), else the envelope sender. */
  from: string;
  /** The To header as written, else the envelope recipients. */
  to: string;
  subject: string;
  /** The text/plain part, decoded (quoted-printable, base64, charsets), or the HTML part as text when there is none. */
  text: string;
}

export interface MailInboxOptions {
  logger: Logger;
  /** Mails kept in memory, newest first. */
  capacity: number;
  /** Largest message accepted, in bytes; a bigger one is refused with 552. */
  maxBytes: number;
}

export interface MailInbox {
  readonly mails: readonly InboxMail[];
  listen(port: number, host: string): Promise<{ port: number }>;
  close(): Promise<void>;
}

/** `Name <address>` or `address`, as a person would write it (mailparser's own text quotes every name). */
function formatAddresses(addresses: EmailAddress[]): string[] {
  return addresses.flatMap((entry) => {
    if (entry.group) return formatAddresses(entry.group);
    if (!entry.address) return entry.name ? [entry.name] : [];
    return [entry.name ? `${entry.name} <${entry.address}>` : entry.address];
  });
}

function addressText(header: AddressObject | AddressObject[] | undefined): string | undefined {
  const headers = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const text = formatAddresses(headers.flatMap((entry) => entry.value)).join(', ');
  return text || undefined;
}

function envelopeSender(session: SMTPServerSession): string {
  return session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
}

/** Reads DATA up to the size limit; past it only drains, since the server answers 552 whatever we say. */
function readMessage(stream: SMTPServerDataStream): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('end', () => resolve(stream.sizeExceeded ? undefined : Buffer.concat(chunks)));
  });
}

async function toInboxMail(raw: Buffer, session: SMTPServerSession): Promise<InboxMail> {
  const parsed = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true });
  return {
    receivedAt: new Date().toISOString(),
    from: addressText(parsed.from) ?? envelopeSender(session),
    to: addressText(parsed.to) ?? session.envelope.rcptTo.map((rcpt) => rcpt.address).join(', '),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
  };
}

/**
 * The demo's mail server: speaks SMTP without authentication or TLS (a local stand-in for a mail provider,
 * never to be exposed), accepts any sender and recipient, and keeps the newest mails in memory.
 */
export function createMailInbox(options: MailInboxOptions): MailInbox {
  const { logger, capacity } = options;
  const mails: InboxMail[] = [];
  const server = new SMTPServer({
    name: 'hashwatch-alert-inbox',
    banner: 'Hashwatch demo inbox',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: options.maxBytes,
    rejectOversized: true,
    disableReverseLookup: true,
    logger: false,
    // Short, so Ctrl-C does not wait on a client that went quiet.
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      readMessage(stream)
        .then(async (raw) => {
          if (!raw) {
            logger.warn('mail refused: too large', { maxBytes: options.maxBytes });
            return callback(null);
          }
          const mail = await toInboxMail(raw, session);
          mails.unshift(mail);
          mails.length = Math.min(mails.length, capacity);
          // The body may hold a password-reset token: only the envelope and subject are logged.
          logger.info('mail received', { from: mail.from, to: mail.to, subject: mail.subject });
          callback(null);
        })
        .catch((error: unknown) => {
          logger.error('mail not read', { error });
          callback(Object.assign(new Error('the message could not be read'), { responseCode: 451 }));
        });
    },
  });
  // A client that drops its connection is the client's problem, not the inbox's.
  server.on('error', (error) => logger.warn('smtp connection error', { error }));
  let listening = false;

  return {
    mails,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(port, host, () => {
          server.server.off('error', reject);
          listening = true;
          resolve({ port: (server.server.address() as AddressInfo).port });
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!listening) return resolve();
        listening = false;
        server.close(() => resolve());
      }),
  };
}
