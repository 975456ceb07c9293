import { waitFor } from '@hashwatch/testing';
import { z } from 'zod';
import { runAdmin } from './harness/admin-cli';
import { GatewayClient } from './harness/gateway-client';
import { Suite } from './harness/suite';

const FAILING_CYCLES = 3;
// More 401s than the cycles it takes to raise the notice: the notice opens once, not at every later failure.
const REFUSED_SEARCHES = FAILING_CYCLES + 2;

interface NoticeRow {
  id: string;
  user_id: string;
  kind: string;
  source: string | null;
  message: string;
  opened_at: Date;
  resolved_at: Date | null;
}

/**
 * X refuses the app token (401) on every search for a while, then accepts it again. Each of the two accounts
 * tracking the source gets exactly one `source_failing` notice, opened after SOURCE_FAILING_CYCLES failed scans
 * and resolved by the first scan that succeeds, with the real scanner, gateway and notifier as processes.
 */
describe('X refusing the app token, then accepting it again', () => {
  let suite: Suite | undefined;

  afterAll(async () => {
    await suite?.stop();
  });

  it('opens and resolves exactly one source_failing notice per account tracking the source', async () => {
    suite = await Suite.start({ env: { SOURCE_FAILING_CYCLES: String(FAILING_CYCLES) } });
    const running = suite;
    const other = z.object({ account_id: z.string(), api_key: z.string() }).parse(
      await runAdmin(running.database.url, ['account:create', '--email', `e2e-other-${running.queuePrefix}@example.com`, '--plan', 'business']),
    );
    const otherGateway = new GatewayClient(running.gateway.baseUrl, other.api_key);
    await otherGateway.resyncLimits();
    await running.gateway.createTrack('E2eNotice');
    await otherGateway.createTrack('e2enotice');
    const before = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= before + 2, 30_000, 'the scanner to search the new tracks');

    await running.xsim.addFault({ endpoint: 'search_recent', kind: 'unauthorized', count: REFUSED_SEARCHES });
    const notices = async () =>
      (await running.pool.query<NoticeRow>(`SELECT id, user_id, kind, source, message, opened_at, resolved_at FROM notices ORDER BY user_id`)).rows;

    await waitFor(async () => (await notices()).length >= 2, 60_000, 'a source_failing notice for each account');
    await waitFor(async () => (await notices()).every((notice) => notice.resolved_at !== null), 60_000, 'the notices to resolve');
    const refused = (await running.xsim.requests('search_recent')).filter((request) => request.status === 401);
    expect(refused).toHaveLength(REFUSED_SEARCHES);

    // A few more successful scans change nothing.
    const settled = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= settled + 3, 30_000, 'more successful scans');
    const rows = await notices();
    expect(rows.map((row) => [row.user_id, row.kind, row.source])).toEqual(
      [
        [running.accountId, 'source_failing', '#e2enotice'],
        [other.account_id, 'source_failing', '#e2enotice'],
      ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1)),
    );
    for (const row of rows) {
      expect(row.message).toContain('X refused the credentials (401)');
      expect(row.resolved_at!.getTime()).toBeGreaterThan(row.opened_at.getTime());
    }
    // The opening and the resolution of each went to the notifier's queue through the outbox (the relay's backstop).
    await waitFor(
      async () => Number((await running.pool.query<{ n: string }>(`SELECT count(*) AS n FROM outbox_jobs WHERE name = 'deliver-notice'`)).rows[0]?.n) === 0,
      30_000,
      'the notice jobs to leave the outbox',
    );
  });
});
