import { createTransport } from 'nodemailer';
import type { Logger } from '@hashwatch/logger';
import { MailError, toMailError } from './mail-error';

/** One mail to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text`. */
  html?: string;
}

/**
 * How long a send may wait, in milliseconds. Each SMTP step is bounded (nodemailer's own defaults are 2 min to
 * connect, 30 s for the greeting and 10 min of socket inactivity), and so is the whole send: a server that
 * answers slowly but steadily still fails within `sendMs`.
 */
export interface MailTimeouts {
  /** TCP connect, DNS and TLS included (nodemailer `connectionTimeout`). */
  connectMs: number;
  /** The server's 220 greeting, within what `connectMs` leaves (nodemailer `greetingTimeout`). */
  greetingMs: number;
  /** Silence on the socket at any later step (nodemailer `socketTimeout`). */
  socketMs: number;
  /** The whole send, from connect to the server's reply to the message. */
  sendMs: number;
}

export const DEFAULT_MAIL_TIMEOUTS: MailTimeouts = { connectMs: 10_000, greetingMs: 10_000, socketMs: 10_000, sendMs: 30_000 };

export interface MailerOptions {
  /** `SMTP_URL`: `smtp://user:pass@host:587` or `smtps://user:pass@host:465`. */
  smtpUrl: string;
  /** `MAIL_FROM`: the From header, `Name <address>` or an address. */
  from: string;
  logger: Logger;
  timeouts?: Partial<MailTimeouts>;
}

export interface Mailer {
  /** Sends one mail; resolves once the server accepted it, throws {@link MailError} otherwise. */
  send(message: MailMessage): Promise<void>;
  /** Closes the transport; later sends throw {@link MailError}. */
  close(): void;
}

/** `host:port` of an SMTP URL, the only part of it that may appear in a log or a message. */
function serverOf(smtpUrl: string): string {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new MailError('config', 'SMTP_URL is not a URL');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new MailError('config', 'SMTP_URL must be an smtp:// or smtps:// URL');
  // nodemailer's defaults when the URL names no port: 465 for TLS from the start, 587 otherwise.
  return `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
}

/**
 * Sends mail through the SMTP server of `smtpUrl` with nodemailer, one connection per mail (a mail is rare:
 * a password reset). Logs each send without its recipient, content or the URL's credentials.
 */
export function createMailer(options: MailerOptions): Mailer {
  const server = serverOf(options.smtpUrl);
  const timeouts = { ...DEFAULT_MAIL_TIMEOUTS, ...options.timeouts };
  const logger = options.logger.child({ component: 'mailer', server });
  const transport = createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    // Messages are strings: nothing may make nodemailer read a file or fetch a URL into one.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  });
  let closed = false;

  return {
    async send(message) {
      if (closed) throw new MailError('failed', `mail not sent through ${server}: the mailer is closed`);
      const started = Date.now();
      try {
        const info = await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
          signal: AbortSignal.timeout(timeouts.sendMs),
        });
        // Several addresses in `to` are sent to whoever accepts; one refused is still a failure to report.
        if (info.rejected.length > 0) throw new MailError('rejected', `mail not sent through ${server}: the server refused a recipient`);
        logger.info('mail sent', { messageId: info.messageId, durationMs: Date.now() - started });
      } catch (error) {
        const failure = toMailError(error, server);
        logger.warn('mail not sent', { reason: failure.reason, responseCode: failure.responseCode, command: failure.command, durationMs: Date.now() - started });
        throw failure;
      }
    },
    close() {
      closed = true;
      transport.close();
    },
  };
}
