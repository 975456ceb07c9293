import path from 'node:path';
import { createQueues, createRedisConnection } from '@hashwatch/queues';
import { type MainProcess, type PrivateRedis, type Received, type Receiver, startPrivateRedis, useMainProcesses, useTestEnvironment, waitFor } from '@hashwatch/testing';
import {
  addWebhook,
  deliveriesOf,
  jsonChannel,
  newAccount,
  post,
  SECRETS_KEY,
  startTestNotifier,
  storeAndRelay,
  storeFeedItems,
} from '../test-support/notifier-fixture';
import { startJsonReceiver } from '../test-support/receiver';

/** The post a json message carries: always exactly one, never a digest (json channels get one message per item). */
function postId(request: Received): string {
  const body = request.json as { type: string; post: { id: string } };
  expect(body.type).toBe('post');
  return body.post.id;
}

describe('resilience', () => {
  const receivers: Receiver[] = [];
  // The real notifier from source (tsx reads the workspace's tsconfig paths: no build needed), each in its own
  // process group, killed after the file if a test leaves it running.
  const processes = useMainProcesses(path.join(__dirname, '../main.ts'));
  let redis: PrivateRedis | undefined;
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await redis?.remove();
  });
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;

  /** The real notifier (src/main.ts) in a child process, configured only through its environment. */
  function spawnNotifier(): MainProcess {
    return processes.start({
      env: {
        DATABASE_URL: env.database.url,
        ...env.redisEnv,
        QUEUE_PREFIX: env.queuePrefix,
        SECRETS_KEY,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        HEALTH_PORT: '0',
        NOTIFIER_SEND_TIMEOUT_MS: '2000',
        LOG_LEVEL: 'error',
      },
    });
  }

  it('loses nothing when a notifier is killed with SIGKILL mid-delivery, and the repeat carries the same webhook-id', async () => {
    const { receiver, user, channelId } = await jsonChannel(env.database, receivers);
    // The first request is held open: the notifier is inside its send when it dies.
    receiver.script('hold');

    const first = spawnNotifier();
    await storeFeedItems(pool(), [post(user)]);
    await receiver.waitForReceived(1, 30_000);
    first.signal('SIGKILL');
    await first.exit;

    const second = spawnNotifier();
    await receiver.waitForAccepted(1, 30_000);
    await waitFor(async () => (await deliveriesOf(pool(), channelId))[0]?.status === 'delivered', 20_000, 'the deliveries delivered');

    const [delivery] = await deliveriesOf(pool(), channelId);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([delivery!.message_id, delivery!.message_id]);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });

    second.signal('SIGTERM');
    expect(await second.exit).toBe(0);
  }, 90_000);

  it('loses nothing when Redis restarts in the middle of a run', async () => {
    redis = await startPrivateRedis();
    const handle = await startTestNotifier(pool(), { redisTarget: redis.url, prefix: env.queuePrefix });
    const producer = createRedisConnection(redis.url, { role: 'producer' });
    const queues = createQueues({ connection: producer, prefix: env.queuePrefix });
    try {
      const secrets: string[] = [];
      const receiver = await startJsonReceiver(() => secrets);
      receivers.push(receiver);
      const channels: string[] = [];
      const stored: string[] = [];
      for (let account = 0; account < 4; account += 1) {
        const user = await newAccount(env.database);
        const channel = await addWebhook(pool(), user, { url: `${receiver.origin}/hook` });
        secrets.push(channel.secret);
        channels.push(channel.id);
        for (let batch = 0; batch < 5; batch += 1) {
          const items = await storeAndRelay(pool(), queues, Array.from({ length: 10 }, () => post(user)));
          stored.push(...items.map((item) => item.id));
        }
      }
      await receiver.waitForAccepted(5, 20_000);
      await redis.restart(1_500);
      // Items stored while Redis is down wait in the outbox; the relay moves them once it is back.
      const user = await newAccount(env.database);
      const late = await addWebhook(pool(), user, { url: `${receiver.origin}/hook` });
      secrets.push(late.secret);
      channels.push(late.id);
      stored.push(...(await storeFeedItems(pool(), Array.from({ length: 10 }, () => post(user)))).map((item) => item.id));

      await waitFor(
        async () => {
          const rows = await Promise.all(channels.map((id) => deliveriesOf(pool(), id)));
          return rows.flat().filter((d) => d.status === 'delivered').length === stored.length;
        },
        60_000,
        'every delivery delivered',
      );
      const seen = new Set(receiver.accepted.map(postId));
      expect(stored.filter((id) => !seen.has(id))).toEqual([]);
    } finally {
      await queues.close();
      producer.disconnect();
      await handle.stop();
    }
  }, 120_000);
});
