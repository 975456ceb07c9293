import { z } from 'zod';
import { configSchema, envPort, loadConfig } from '@hashwatch/config';
import { createShutdown, runMain } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createAlertInbox } from './alert-inbox';

/** The inbox stands in for the outside world: of the shared variables it uses only LOG_LEVEL (a malformed one stops it, as it stops every app). */
const inboxConfig = configSchema.extend({
  ALERT_INBOX_PORT: envPort.default(4200),
  // 42xx like the inbox's HTTP port, 25 for SMTP.
  ALERT_INBOX_SMTP_PORT: envPort.default(4225),
  ALERT_INBOX_HOST: z.string().min(1).default('127.0.0.1'),
  ALERT_INBOX_SECRET: z.string().startsWith('whsec_').optional(),
});

async function main(): Promise<void> {
  const config = loadConfig(inboxConfig);
  const logger = createLogger('alert-inbox', { level: config.LOG_LEVEL });
  const inbox = createAlertInbox({ logger, ...(config.ALERT_INBOX_SECRET ? { secret: config.ALERT_INBOX_SECRET } : {}) });
  const shutdown = createShutdown({ logger, timeoutMs: 5_000 });
  shutdown.onShutdown('http and smtp servers', () => inbox.close());
  shutdown.listen();
  const { url } = await inbox.listen(config.ALERT_INBOX_PORT, config.ALERT_INBOX_HOST);
  const { port: smtpPort } = await inbox.listenSmtp(config.ALERT_INBOX_SMTP_PORT, config.ALERT_INBOX_HOST);
  logger.info('alert inbox listening', { url, smtp: `smtp://${config.ALERT_INBOX_HOST}:${smtpPort}`, verifying: Boolean(config.ALERT_INBOX_SECRET) });
}

runMain(main);
