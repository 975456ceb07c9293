import { z } from 'zod';
import { waitFor, WebhookReceiver } from '@hashwatch/testing';
import { runAdmin } from './harness/admin-cli';
import { Suite } from './harness/suite';
import { postBurst } from './harness/watch-tags';

const ALERTS_LIMIT = 10;
const discordSchema = z.object({ embeds: z.array(z.object({ title: z.string(), description: z.string() })).optional() });

/**
 * An account near the end of its alert quota, with the built scanner, gateway and notifier as processes: posts
 * carry it across 80 % and then 100 %, and its Discord channel gets exactly one "quota at 80 %" and one "quota used
 * up" notice beside the alerts the quota let through, never counted as alerts themselves; more posts open nothing.
 */
describe('an account using up its alert quota', () => {
  let suite: Suite | undefined;
  const discord = new WebhookReceiver();

  afterAll(async () => {
    await discord.close();
    await suite?.stop();
  });

  it('gets one quota_warning and one quota_exhausted notice on Discord, and the feed stops at the limit', async () => {
    suite = await Suite.start();
    const running = suite;
    await runAdmin(running.database.url, ['plan:set', '--plan', 'business', '--alerts', String(ALERTS_LIMIT)]);
    await running.gateway.resyncLimits();
    await discord.start();
    await running.gateway.call('PUT', '/notifications', { webhooks: [{ url: discord.url, format: 'discord' }], bot: null });
    await running.gateway.createTrack('E2eQuota');
    const before = (await running.xsim.requests('search_recent')).length;
    await waitFor(async () => (await running.xsim.requests('search_recent')).length >= before + 2, 30_000, 'the scanner to search the new track');

    await postBurst(running, ALERTS_LIMIT + 5, ['E2eQuota'], 3_000);
    const notices = async () =>
      (await running.pool.query<{ kind: string; resolved_at: Date | null }>('SELECT kind, resolved_at FROM notices WHERE user_id = $1 ORDER BY kind', [running.accountId])).rows;
    await waitFor(async () => (await notices()).length >= 2, 60_000, 'both quota notices');
    const titles = () =>
      discord.requests
        .map((request) => discordSchema.parse(JSON.parse(request.body)).embeds?.[0]?.title)
        .filter((title): title is string => title !== undefined && title.startsWith('⚠'));
    await waitFor(() => titles().length >= 2, 30_000, 'both notices on Discord');
    // Time for a repeat to show, were there one.
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    expect(await notices()).toEqual([
      { kind: 'quota_exhausted', resolved_at: null },
      { kind: 'quota_warning', resolved_at: null },
    ]);
    expect(titles().sort()).toEqual(['⚠ Hashwatch notice: alert quota at 80 %', '⚠ Hashwatch notice: alert quota used up'].sort());
    expect(await running.feedItems()).toHaveLength(ALERTS_LIMIT);
    // Alerts and notices reached Discord; the quota counted the alerts only.
    const { rows } = await running.pool.query<{ alerts_used: number }>('SELECT alerts_used FROM usage_periods WHERE user_id = $1', [running.accountId]);
    expect(rows).toEqual([{ alerts_used: ALERTS_LIMIT }]);
    expect(discord.requests.length).toBeGreaterThanOrEqual(2 + 1);
  });
});
