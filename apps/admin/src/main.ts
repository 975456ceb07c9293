import { loadConfig } from '@hashwatch/config';
import { createDatabase, type Database } from '@hashwatch/db';
import { createCipher } from '@hashwatch/secrets';
import { adminConfigSchema } from './admin-config';
import { runCommand } from './run-command';
import { createSecurityNotifier } from './security-mail';
import { toAppError } from './to-app-error';

/**
 * Composition root of the admin CLI: one command in, one JSON object out. Success prints the result on
 * stdout and exits 0; failure prints {"error":{"code","message"}} on stderr and exits 1. Nothing else
 * is written to either stream, but for one `{"warning"}` line on stderr when a security mail could not be sent.
 */
async function main(argv: readonly string[]): Promise<number> {
  let db: Database | undefined;
  try {
    const config = loadConfig(adminConfigSchema);
    // The pool connects lazily, so commands that fail on their flags never touch the database.
    // No session bounds: an operator's command (a usage report over every account, a reseal) may run long on purpose.
    db = createDatabase(config.DATABASE_URL, { max: 2, applicationName: 'hashwatch-admin', timeouts: false });
    const cipher = config.SECRETS_KEY ? createCipher(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS) : undefined;
    const notify = config.SMTP_URL
      ? createSecurityNotifier({
          prisma: db.prisma,
          smtpUrl: config.SMTP_URL,
          from: config.MAIL_FROM,
          publicUrl: config.PUBLIC_URL,
          warn: (message) => process.stderr.write(`${JSON.stringify({ warning: message })}\n`),
        })
      : undefined;
    const result = await runCommand(argv, { prisma: db.prisma, now: () => new Date(), cipher, ...(notify ? { notify } : {}) });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const { code, message } = toAppError(error);
    process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

void main(process.argv.slice(2)).then((exitCode) => {
  process.exitCode = exitCode;
});
