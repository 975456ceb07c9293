import { Redis } from 'ioredis';
import { createDatabase } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { createCipher, generateSecretsKey } from '@hashwatch/secrets';
import { createApp, openApiOf } from './app';

/**
 * Prints the gateway's OpenAPI document, exactly as `GET /v1/openapi.json` answers it, without a database or
 * Redis: the app is built with clients that never connect (no request is served). `packages/sdk` generates
 * its types from this output (`npm run openapi:generate -w @hashwatch/sdk`).
 */
function main(): void {
  const db = createDatabase('postgresql://unused@127.0.0.1:1/unused', { max: 1 });
  const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
  const secretsKey = generateSecretsKey();
  const app = createApp({
    db,
    redis,
    logger: createLogger('gateway', { level: 'error' }),
    cipher: createCipher(secretsKey),
    secretsKey,
    keyPrefix: 'openapi-export',
    now: () => new Date(),
  });
  process.stdout.write(`${JSON.stringify(openApiOf(app), null, 2)}\n`);
  redis.disconnect();
  void db.close();
}

main();
