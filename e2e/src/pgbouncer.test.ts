import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrivatePgBouncer, waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const SHARED_POSTGRES = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DOWN_MS = 2_000;
// After PgBouncer is back, the gateway answers every request again within this long: a pooled connection broken by
// the restart is found on its next use, and a 2-core machine running the whole suite took over 5 s for the last one.
const GATEWAY_BACK_MS = 15_000;

interface Answer {
  /** When the request was sent, and when its answer (or failure) came. */
  at: number;
  answeredAt: number;
  path: string;
  status: number;
}

// Between two rounds of the probe: 2 requests per round stay under the account's 600 per minute (Business), whatever
// the gateway's latency, so every answer outside the outage can be a 200.
const PROBE_EVERY_MS = 250;

/** Asks the gateway what a client polls (its feed, its account) every PROBE_EVERY_MS until stopped; records every answer. */
function probeGateway(suite: Suite): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(['/posts?limit=5', '/me'].map(async (path) => {
        const at = Date.now();
        try {
          const response = await fetch(`${suite.gateway.baseUrl}/v1${path}`, {
            headers: { authorization: `Bearer ${suite.gateway.apiKey}` },
            signal: AbortSignal.timeout(10_000),
          });
          await response.arrayBuffer();
          answers.push({ at, answeredAt: Date.now(), path, status: response.status });
        } catch {
          answers.push({ at, answeredAt: Date.now(), path, status: 0 });
        }
      }));
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  return {
    answers,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * Every app through a PgBouncer in transaction mode (DATABASE_URL), with the scanners' session locks on
 * DATABASE_DIRECT_URL; two scanners and two notifiers. PgBouncer shuts down at once (every client connection
 * dropped, transactions rolled back) in the middle of a burst of 120 posts to two json channels, and is back 2 s
 * later. Nothing is lost or stored twice; the gateway never answers 500 and, outside the outage, only 200; no
 * named statement collides on a shared server connection; the engagement poller's claims run throughout.
 */
describe('the suite through PgBouncer (transaction mode), restarted mid-burst', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hw-e2e-pgbouncer-'));
  // Fewer server connections than the apps' pools add up to (gateway 10, scanners 2 × 20, notifiers 2 × 20, poller 12).
  const bouncer = new PrivatePgBouncer(dir, SHARED_POSTGRES, 12);
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    // PgBouncer goes first: the suite drops its database directly, which needs PgBouncer's connections gone.
    await bouncer.stop();
    await suite?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no post, never answers 500, and keeps claiming engagement through a restart', async () => {
    await bouncer.start();
    suite = await Suite.start({ databaseVia: (url) => bouncer.via(url), replicas: { scanner: 2, notifier: 2 } });
    const running = suite;
    channels = await watchTags(running, ['e2epooled', 'e2ebouncer'], [
      { name: 'every-source', hashtags: [] },
      { name: 'pooled-only', hashtags: ['e2epooled'] },
    ], { engagementTags: ['e2epooled'] });
    const accepted = () => channels.reduce((sum, channel) => sum + channel.receiver.accepted().length, 0);
    const probe = probeGateway(running);

    const burst = postBurst(running, 120, ['e2epooled', 'e2ebouncer'], 8_000);
    await waitFor(() => accepted() >= 20, 60_000, '20 deliveries before the restart', 20);
    const deliveredBefore = accepted();
    const downAt = Date.now();
    await bouncer.stop();
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await bouncer.start();
    const faultEnd = Date.now();
    const posts = await burst;

    const check = await waitForDeliveries(running, posts, channels, 90_000);
    // The poller refreshed counts of the tracked posts after the restart too: its named claim no longer collides.
    await waitFor(async () => {
      const { rows } = await running.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM engagement_states WHERE counts_updated_at > $1', [new Date(faultEnd)]);
      return (rows[0]?.n ?? 0) > 0;
    }, 30_000, 'engagement counts refreshed after the restart');
    // The probe covers the outage and goes on for at least 100 answers, however fast the burst was delivered.
    await waitFor(() => probe.answers.length > 100, 30_000, '100 answers to the gateway probe');
    await probe.stop();
    reportScenario('pgbouncer-restarted-mid-burst', check, faultEnd, { down_ms: DOWN_MS, delivered_before_outage: deliveredBefore });

    expect(running.apps.filter((app) => !app.isRunning()).map((app) => `${app.label}: ${app.logTail(5)}`)).toEqual([]);
    expect(deliveryViolations(check, { allowSameIdRedelivery: true })).toEqual([]);
    const answers = probe.answers;
    expect(answers.length).toBeGreaterThan(100);
    expect(answers.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([]);
    // Outside the outage: answered before PgBouncer went down, or asked once the gateway had had its time to come
    // back. A request sent a moment before the stop and answered during it belongs to the outage.
    const outside = answers.filter((answer) => answer.answeredAt < downAt || answer.at > faultEnd + GATEWAY_BACK_MS);
    expect(outside.filter((answer) => answer.status !== 200)).toEqual([]);
    // No app met a prepared statement of another client's on a shared server connection.
    const logs = running.apps.map((app) => readFileSync(app.logFile, 'utf8')).join('\n');
    expect(logs.match(/prepared statement "[^"]*" (?:already exists|does not exist)/g) ?? []).toEqual([]);
  });
});
