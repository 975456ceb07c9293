import { Writable } from 'node:stream';
import winston from 'winston';
import { securityChangeMail, type SecurityChange } from '@hashwatch/accounts';
import type { PrismaClient } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { createMailer } from '@hashwatch/mail';

/**
 * CommandDeps.notify through SMTP_URL: the account's address hears of a change an operator made, as it does of its
 * own (apps/gateway sessions/security-mail.ts). The CLI writes only its JSON, so the mailer's log goes nowhere; a
 * mail that cannot be sent is reported through `warn` (one line on stderr), and the command still succeeded.
 */
export function createSecurityNotifier(options: {
  prisma: PrismaClient;
  smtpUrl: string;
  from: string;
  publicUrl: string;
  warn: (message: string) => void;
}): (accountId: string, change: SecurityChange) => Promise<void> {
  const silent = new winston.transports.Stream({ stream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  const mailer = createMailer({ smtpUrl: options.smtpUrl, from: options.from, logger: createLogger('admin', { level: 'error', transports: [silent] }) });
  const resetUrl = `${options.publicUrl.replace(/\/+$/, '')}/forgot-password`;
  return async (accountId, change) => {
    try {
      const user = await options.prisma.user.findUnique({ where: { id: accountId }, select: { email: true } });
      if (!user) return;
      await mailer.send({ to: user.email, ...securityChangeMail(change, resetUrl) });
    } catch (error) {
      options.warn(`the mail telling the account of this change was not sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}
