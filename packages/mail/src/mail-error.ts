/** Why a mail was not sent. */
export type MailFailure =
  /** SMTP_URL is not an smtp: or smtps: URL. */
  | 'config'
  /** No SMTP conversation: connection refused or reset, DNS, TLS. */
  | 'unreachable'
  /** A connection, greeting, socket or whole-send deadline passed. */
  | 'timeout'
  /** The server refused the credentials of SMTP_URL (or wanted some). */
  | 'auth'
  /** The server refused the sender, a recipient or the message. */
  | 'rejected'
  /** Anything else: a protocol error, a closed mailer. */
  | 'failed';

/**
 * A mail that was not sent. The message names the server by host and port only, never the credentials of
 * SMTP_URL nor the mail's content, and not the server's reply text either (a server may echo what it was sent).
 */
export class MailError extends Error {
  constructor(
    readonly reason: MailFailure,
    message: string,
    /** The SMTP reply code, when the server answered with one (550 for a refused recipient). */
    readonly responseCode?: number,
    /** The SMTP command that failed (`RCPT TO`, `AUTH PLAIN`, `CONN`), when known. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'MailError';
  }
}

type NodemailerFailure = { code?: unknown; responseCode?: unknown; command?: unknown };

const REASON_BY_CODE: Record<string, MailFailure> = {
  EAUTH: 'auth',
  ENOAUTH: 'auth',
  EENVELOPE: 'rejected',
  EMESSAGE: 'rejected',
  EMAXRECIPIENTS: 'rejected',
  ETIMEDOUT: 'timeout',
  EABORT: 'timeout',
  ECONNECTION: 'unreachable',
  ESOCKET: 'unreachable',
  EDNS: 'unreachable',
  ETLS: 'unreachable',
  EPROXY: 'unreachable',
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
};

const EXPLANATION: Record<MailFailure, string> = {
  config: 'SMTP_URL is not usable',
  unreachable: 'could not reach the server',
  timeout: 'the server did not answer in time',
  auth: 'the server refused the credentials of SMTP_URL',
  rejected: 'the server refused the mail',
  failed: 'the SMTP conversation failed',
};

// Only a bare command verb is kept: an AUTH command line would carry the credentials.
const SAFE_COMMAND = /^[A-Z][A-Z0-9 -]{1,24}$/;

/** Turns what nodemailer threw into a {@link MailError} that names `server` (host:port) and nothing secret. */
export function toMailError(error: unknown, server: string): MailError {
  if (error instanceof MailError) return error;
  const failure = (typeof error === 'object' && error !== null ? error : {}) as NodemailerFailure;
  const code = typeof failure.code === 'string' ? failure.code : '';
  const reason = REASON_BY_CODE[code] ?? 'failed';
  const responseCode = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
  const command = typeof failure.command === 'string' && SAFE_COMMAND.test(failure.command) ? failure.command : undefined;
  const detail = [responseCode, command].filter((part) => part !== undefined).join(' ');
  return new MailError(reason, `mail not sent through ${server}: ${EXPLANATION[reason]}${detail ? ` (${detail})` : ''}`, responseCode, command);
}
