import { waitFor } from '@hashwatch/testing';
import { deliveryViolations, waitForDeliveries, type WatchedChannel } from './harness/delivery-check';
import { reportScenario } from './harness/scenario-report';
import { Suite } from './harness/suite';
import { postBurst, watchTags } from './harness/watch-tags';

const TAGS = ['e2estream', 'e2estreamb'];
const MARGIN_SECONDS = 3;

/**
 * Two scanners fed by X's filtered stream (X_STREAM=true): one holds the connection. Mid-burst every scanner is
 * SIGKILLed, and a new one started: posts published while nobody held the stream are back-filled by search over the
 * window its coverage missed. Every post is delivered once per channel, and the sources the stream serves are not
 * searched at their cadence meanwhile.
 */
describe('the filtered stream, its holder SIGKILLed', () => {
  let suite: Suite | undefined;
  let channels: WatchedChannel[] = [];

  afterAll(async () => {
    await Promise.allSettled(channels.map((channel) => channel.receiver.close()));
    await suite?.stop();
  });

  it('loses no post and delivers none twice, and spends no cadence searches on the sources it serves', async () => {
    suite = await Suite.start({
      replicas: { scanner: 2 },
      env: { X_STREAM: 'true', X_STREAM_MARGIN_SECONDS: String(MARGIN_SECONDS), X_STREAM_STALE_SECONDS: '30', X_SIM_STREAM_KEEPALIVE_MS: '1000' },
    });
    const running = suite;
    channels = await watchTags(running, TAGS, [{ name: 'every-source', hashtags: [] }]);
    const accepted = () => channels.reduce((sum, channel) => sum + channel.receiver.accepted().length, 0);
    const streamServed = async () => {
      const { rows } = await running.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM source_cursors
          WHERE streamed_since IS NOT NULL AND scan_started_at >= streamed_since + make_interval(secs => $1) AND last_scan_at >= scan_started_at`,
        [MARGIN_SECONDS],
      );
      return rows[0]?.n ?? 0;
    };
    // Each source joins the stream, then has a search that starts a margin later: from then on the stream alone serves it.
    await waitFor(async () => (await streamServed()) === TAGS.length, 60_000, 'both sources served by the stream', 250);

    const cadenceSearches = async () => (await running.xsim.requests('search_recent')).filter((request) => request.query.end_time === undefined).length;
    const searchesBefore = await cadenceSearches();
    const burst = postBurst(running, 120, TAGS, 12_000);
    await waitFor(() => accepted() >= 20, 60_000, '20 deliveries before the kill', 20);
    const searchesWhileStreaming = (await cadenceSearches()) - searchesBefore;
    for (const scanner of running.running('scanner')) scanner.signal('SIGKILL');
    await Promise.all(running.running('scanner').map((scanner) => scanner.exited));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await running.startWorker('scanner');
    const faultEnd = Date.now();
    const posts = await burst;

    const check = await waitForDeliveries(running, posts, channels, 120_000);
    const { rows: gaps } = await running.pool.query<{ filled: boolean }>('SELECT filled_at IS NOT NULL AS filled FROM stream_gaps');
    reportScenario('stream-holder-sigkill', check, faultEnd, { cadence_searches_while_streaming: searchesWhileStreaming, gaps: gaps.length });

    expect(deliveryViolations(check, { allowSameIdRedelivery: false })).toEqual([]);
    expect(searchesWhileStreaming).toBe(0);
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps.every((gap) => gap.filled)).toBe(true);
  });
});
