import { z } from 'zod';
import { createLogger } from '@hashwatch/logger';
import { createAlertInbox } from './alert-inbox';

/** The inbox's environment: it is a stand-in for the outside world, so it reads only its own variables. */
const envSchema = z.object({
  ALERT_INBOX_PORT: z.coerce.number().int().min(0).max(65535).default(4200),
  ALERT_INBOX_HOST: z.string().min(1).default('127.0.0.1'),
  ALERT_INBOX_SECRET: z.string().startsWith('whsec_').optional(),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info'),
});

async function main(): Promise<void> {
  const present = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new Error(`invalid environment: ${parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('; ')}`);
  }
  const env = parsed.data;
  const logger = createLogger('alert-inbox', { level: env.LOG_LEVEL });
  const inbox = createAlertInbox({ logger, ...(env.ALERT_INBOX_SECRET ? { secret: env.ALERT_INBOX_SECRET } : {}) });
  const { url } = await inbox.listen(env.ALERT_INBOX_PORT, env.ALERT_INBOX_HOST);
  logger.info('alert inbox listening', { url, verifying: Boolean(env.ALERT_INBOX_SECRET) });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('alert inbox stopping', { signal });
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    void inbox.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
