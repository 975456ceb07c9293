import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { createManualBilling } from '@hashwatch/billing';
import { createLogger } from '@hashwatch/logger';
import { createMailer } from '@hashwatch/mail';
import type { SelfServiceOptions } from '../routes/session/self-service-options';

/** One mail as the receiver read it. */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

export interface MailReceiver {
  /** `smtp://127.0.0.1:<port>`: SMTP_URL for the gateway. */
  readonly url: string;
  readonly mails: ReceivedMail[];
  close(): Promise<void>;
}

/** A local SMTP server (no auth, no TLS) that keeps every mail it is given, decoded. */
export async function startMailReceiver(): Promise<MailReceiver> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), subject: parsed.subject ?? '', text: parsed.text ?? '' });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Self-service options that mail through `receiver`: manual billing, links on `publicUrl`. */
export function mailingSelfService(receiver: MailReceiver, publicUrl: string, autoActivate: boolean): SelfServiceOptions {
  return {
    billing: createManualBilling({ publicUrl }),
    autoActivate,
    publicUrl,
    mailer: createMailer({ smtpUrl: receiver.url, from: 'Hashwatch <no-reply@example.com>', logger: createLogger('gateway', { level: 'error' }) }),
    stripeWebhook: null,
  };
}
