// What the gateway's metrics cost: request measurement per request, and one scrape of GET /metrics.
//
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/metrics-overhead.ts
//
// Needs Redis (REDIS_URL); its queue counts are read under a prefix of its own, deleted afterwards.
// Goals: measuring every request costs under 5 % of the throughput of a trivial route (req/s of the measured app
// against the same app unmeasured, alternating rounds in one run); a scrape of the gateway, queue counts of every
// queue included, takes under 50 ms at p99.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { createGatewayMetrics, measureRequests } from '@hashwatch/gateway';
import { createLogger } from '@hashwatch/logger';
import { createMetricsRegistry } from '@hashwatch/metrics';
import { createQueues, createRedisConnection, enqueue } from '@hashwatch/queues';
import { createQueuePrefix, deletePrefixKeys } from '@hashwatch/testing';
import { machineDescription, percentile } from './bench-support';

const CONNECTIONS = 20;
const SECONDS = 5;
const ROUNDS = 3;
const SCRAPES = 300;

const log = (line: string) => process.stdout.write(`${line}\n`);

function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/ping/42` }));
  });
}

function pingApp(measure?: express.RequestHandler): express.Express {
  const app = express();
  if (measure) app.use(measure);
  app.get('/v1/ping/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  return app;
}

async function reqPerSec(url: string): Promise<number> {
  return (await autocannon({ url, connections: CONNECTIONS, duration: SECONDS })).requests.average;
}

async function scrapeTimes(scrape: () => Promise<string>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SCRAPES; i += 1) {
    const started = process.hrtime.bigint();
    await scrape();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const logger = createLogger('bench', { level: 'error' });
  const prefix = createQueuePrefix();
  const connection = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { role: 'producer' });
  const queues = createQueues({ connection, prefix });
  const metrics = createGatewayMetrics({ logger, queues });
  const plain = await listen(pingApp());
  const measured = await listen(pingApp(measureRequests(metrics)));
  try {
    for (let i = 0; i < 50; i += 1) await enqueue(queues, 'alert-routing', 'route-alerts', { items: [{ feedItemId: `post_b${i}`, userId: 'usr_bench' }] }, { jobId: `bench-${i}` });
    log(`machine: ${machineDescription()}`);
    await reqPerSec(plain.url);
    const rounds: { plain: number; measured: number }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) rounds.push({ plain: await reqPerSec(plain.url), measured: await reqPerSec(measured.url) });
    for (const [i, round] of rounds.entries()) log(`round ${i + 1}: plain ${round.plain.toFixed(0)} req/s, measured ${round.measured.toFixed(0)} req/s`);
    const ratio = rounds.reduce((total, round) => total + round.measured, 0) / rounds.reduce((total, round) => total + round.plain, 0);
    log(`measured / plain throughput: ${ratio.toFixed(3)}`);

    const bare = createMetricsRegistry('bench');
    const baseline = await scrapeTimes(() => bare.metrics());
    const gateway = await scrapeTimes(() => metrics.registry.metrics());
    log(`scrape, process metrics only: p50 ${percentile(baseline, 50).toFixed(2)} ms, p99 ${percentile(baseline, 99).toFixed(2)} ms`);
    log(`scrape, gateway (routes + ${Object.keys(queues.byName).length} queues' counts): p50 ${percentile(gateway, 50).toFixed(2)} ms, p99 ${percentile(gateway, 99).toFixed(2)} ms (p50 ratio ${(percentile(gateway, 50) / percentile(baseline, 50)).toFixed(1)})`);
  } finally {
    plain.server.close();
    measured.server.close();
    await queues.close();
    await deletePrefixKeys(connection, prefix);
    connection.disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
