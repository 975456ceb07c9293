// Jobs per second through BullMQ on a three-master Redis Cluster against one Redis server, in the same run.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/queues-cluster.ts
//
// Needs `redis-server` and `redis-cli` (the cluster is started from them in a temporary directory and removed) and
// the Redis of REDIS_URL (the baseline; only this run's own prefix is written and deleted). Workload: JOBS jobs
// added in bulk to three catalog queues (alert-deliveries, outbox-relay, source-scans: on the three masters of the
// cluster) and run by one worker per queue at CONCURRENCY, timed from the first add to the last completion.
// Alternates server and cluster ROUNDS times.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createQueuePrefix, deletePrefixKeys, PrivateRedisCluster } from '@hashwatch/testing';
import { createLogger } from '@hashwatch/logger';
import { createQueues, createRedisConnection, defineWorker, enqueueBulk, untilReady, type JobRecord, type RedisTarget } from '@hashwatch/queues';
import { machineDescription } from './bench-support';

const JOBS = Number(process.env.QUEUES_BENCH_JOBS) || 6_000;
const CONCURRENCY = 20;
const ROUNDS = 2;
const logger = createLogger('bench', { level: 'error' });

interface Cluster {
  nodes: string;
  stop(): Promise<void>;
}

/** The tests' private three-master cluster (@hashwatch/testing), its files in a temporary directory removed after. */
async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-queues-cluster-'));
  const cluster = new PrivateRedisCluster(dir);
  await cluster.start();
  return {
    nodes: cluster.nodes,
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function records(): JobRecord[] {
  const out: JobRecord[] = [];
  for (let i = 0; i < JOBS; i += 1) {
    const kind = i % 3;
    if (kind === 0) out.push({ queueName: 'alert-deliveries', jobName: 'deliver-alert', payload: { deliveryId: `d${i}` }, jobId: `d${i}` });
    else if (kind === 1) out.push({ queueName: 'outbox-relay', jobName: 'relay-outbox', payload: {}, jobId: `r${i}` });
    else out.push({ queueName: 'source-scans', jobName: 'reconcile-schedulers', payload: {}, jobId: `s${i}` });
  }
  return out;
}

/** Jobs per second for one round on `target`. */
async function round(target: RedisTarget): Promise<number> {
  const prefix = createQueuePrefix();
  const producer = createRedisConnection(target, { role: 'producer' });
  const worker = createRedisConnection(target, { role: 'worker' });
  await untilReady(producer);
  const queues = createQueues({ connection: producer, prefix });
  let done = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const count = async () => {
    done += 1;
    if (done === JOBS) finish();
  };
  const options = { connection: worker, prefix, concurrency: CONCURRENCY, logger };
  const workers = [
    defineWorker('alert-deliveries', { 'deliver-alert': count, 'drain-channel': count, 'deliver-notice': count }, options),
    defineWorker('outbox-relay', { 'relay-outbox': count }, options),
    defineWorker('source-scans', { 'scan-sources': count, 'reconcile-schedulers': count }, options),
  ];
  const started = performance.now();
  const all = records();
  for (let at = 0; at < all.length; at += 500) await enqueueBulk(queues, all.slice(at, at + 500));
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.close()));
  await queues.close();
  await deletePrefixKeys(producer, prefix);
  producer.disconnect();
  worker.disconnect();
  return JOBS / seconds;
}

async function main(): Promise<void> {
  const server = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const cluster = await startCluster();
  const target = { clusterNodes: cluster.nodes.split(',').map((node) => ({ host: node.split(':')[0] ?? '', port: Number(node.split(':')[1]) })) };
  try {
    process.stdout.write(`machine: ${machineDescription()}\njobs per round: ${JOBS}, concurrency ${CONCURRENCY} per queue\n`);
    for (let i = 0; i < ROUNDS; i += 1) {
      const single = await round(server);
      const clustered = await round(target);
      process.stdout.write(`round ${i + 1}: server ${single.toFixed(0)} jobs/s, cluster ${clustered.toFixed(0)} jobs/s, ratio ${(clustered / single).toFixed(2)}\n`);
    }
  } finally {
    await cluster.stop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
