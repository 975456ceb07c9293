import { loadConfig } from '@hashwatch/config';
import { createShutdown, runMain } from '@hashwatch/lifecycle';
import { createLogger } from '@hashwatch/logger';
import { createAlertInbox } from './alert-inbox';
import { inboxConfig } from './alert-inbox-config';

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
