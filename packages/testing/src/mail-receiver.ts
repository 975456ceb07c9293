import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

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
