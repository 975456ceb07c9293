import { useTestEnvironment } from '@hashwatch/testing';
import { newId, transaction } from '@hashwatch/db';
import { raiseNotice, resolveNotice } from '@hashwatch/notices';
import { fanOutNotice } from '../notices/fan-out-notice';
import { resolveNotifierOptions } from '../notifier-options';
import { addWebhook, deliveriesOf, newAccount, post, sleep, storeFeedItems } from '../test-support/notifier-fixture';
import { refuseChannel } from '../health/channel-health';
import { channelsWithDueDeliveries, claimNext, createDeliveredWriter, failPending, markDelivered, markFailed, markRetry, messageIdFor, releaseClaim } from './delivery-store';

describe('delivery store', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const options = resolveNotifierOptions();
  const claimInput = { digestMode: false, digestThreshold: 20, digestSize: 10, holdMs: 60_000, claimToken: 'run-1' };

  /** A channel with `count` pending deliveries, due now, in detection order. */
  async function channelWithDeliveries(count: number) {
    const user = await newAccount(env.database);
    const channel = await addWebhook(pool(), user, { url: 'https://hooks.example.com/in' });
    const items = [];
    // One item per transaction, so each has its own detection time.
    for (let i = 0; i < count; i += 1) items.push(...(await storeFeedItems(pool(), [post(user)])));
    for (const item of items) {
      await pool().query(
        `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id, status, attempts, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', 0, now())`,
        [newId('dlv'), user, channel.id, item.id, messageIdFor(channel.id, item.id)],
      );
    }
    return { user, channelId: channel.id, items };
  }

  it('keeps retrying a failing delivery for 24 hours by default, and gives up only after', async () => {
    expect(options.retryWindowMs).toBeGreaterThanOrEqual(24 * 60 * 60_000);
    const { channelId } = await channelWithDeliveries(2);
    const [young, old] = await deliveriesOf(pool(), channelId);
    await claimNext(pool(), channelId, { ...claimInput, batch: 2 });
    await pool().query(`UPDATE deliveries SET created_at = now() - interval '23 hours 50 minutes', attempts = 30 WHERE id = $1`, [young!.id]);
    await pool().query(`UPDATE deliveries SET created_at = now() - interval '24 hours 1 minute', attempts = 31 WHERE id = $1`, [old!.id]);

    const retry = { status: 503, reason: 'the receiver answered 503', delayMs: 60_000, retryWindowMs: options.retryWindowMs };
    expect(await markRetry(pool(), [young!.id], claimInput.claimToken, retry)).toEqual({ gaveUp: 0 });
    expect(await markRetry(pool(), [old!.id], claimInput.claimToken, retry)).toEqual({ gaveUp: 1 });

    const after = new Map((await deliveriesOf(pool(), channelId)).map((d) => [d.id, d]));
    expect(after.get(young!.id)).toMatchObject({ status: 'pending', last_error: 'the receiver answered 503', last_status: 503 });
    expect(after.get(young!.id)!.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(after.get(old!.id)).toMatchObject({ status: 'failed', last_error: 'gave up after 31 attempts: the receiver answered 503', next_attempt_at: null });
  });

  it('claims up to the batch in detection order with the channel row, counting the attempt and holding the rest back', async () => {
    const { channelId, items } = await channelWithDeliveries(5);

    const first = await claimNext(pool(), channelId, { ...claimInput, batch: 3 });

    expect(first.channel).toMatchObject({ id: channelId, kind: 'webhook', url: 'https://hooks.example.com/in', enabled: true, disabled_reason: null });
    expect(first.claimed.map((d) => d.feed_item_id)).toEqual(items.slice(0, 3).map((item) => item.id));
    expect(first.claimed.every((d) => d.attempts === 1 && d.detected_at instanceof Date)).toBe(true);
    expect(first.backlog).toBe(5);
    // Claimed rows are not due again while held: the next claim takes the other two, and marks the first delivered.
    const second = await claimNext(pool(), channelId, {
      ...claimInput,
      batch: 3,
      delivered: first.claimed.map((d) => ({ id: d.id, status: 204, digestId: null, claimToken: claimInput.claimToken })),
    });
    expect(second.claimed.map((d) => d.feed_item_id)).toEqual(items.slice(3).map((item) => item.id));
    const statuses = (await deliveriesOf(pool(), channelId)).map((d) => [d.status, d.last_status]);
    expect(statuses).toEqual([['delivered', 204], ['delivered', 204], ['delivered', 204], ['pending', null], ['pending', null]]);
  });

  it('answers a backlog larger than its claim when the claim is as large as the digest threshold or larger', async () => {
    const { channelId } = await channelWithDeliveries(8);
    // A json run claims its batch, digests never: a backlog counted only up to the threshold would end the run
    // idle with 3 deliveries due (and leave them to the sweeper).
    const first = await claimNext(pool(), channelId, { ...claimInput, digestThreshold: 3, digestSize: 5, batch: 5 });
    expect(first.claimed).toHaveLength(5);
    expect(first.backlog).toBeGreaterThan(first.claimed.length);
    const second = await claimNext(pool(), channelId, { ...claimInput, digestThreshold: 3, digestSize: 5, batch: 5, claimToken: 'run-2' });
    expect([second.claimed.length, second.backlog]).toEqual([3, 3]);
  });

  it('records outcomes and gives back only for the run whose claim the deliveries still carry', async () => {
    const { channelId } = await channelWithDeliveries(4);
    // The first run's hold lapses (its lease was lost) and a newer run claims the same deliveries.
    const stale = await claimNext(pool(), channelId, { ...claimInput, batch: 4, holdMs: 1, claimToken: 'run-stale' });
    const [d1, d2, d3, d4] = stale.claimed.map((delivery) => delivery.id);
    await sleep(20);
    const current = await claimNext(pool(), channelId, { ...claimInput, batch: 4, claimToken: 'run-current' });
    expect(current.claimed.map((delivery) => delivery.id)).toEqual([d1, d2, d3, d4]);
    const heldByCurrent = async () =>
      (await pool().query<{ status: string; attempts: number; held: boolean; claim_token: string }>(
        `SELECT status, attempts, next_attempt_at > now() + interval '30 seconds' AS held, claim_token FROM deliveries WHERE channel_id = $1 ORDER BY id`,
        [channelId],
      )).rows;
    const before = await heldByCurrent();
    expect(before).toEqual(Array.from({ length: 4 }, () => ({ status: 'pending', attempts: 2, held: true, claim_token: 'run-current' })));

    // Everything the stale run still does with its old claim leaves the newer one as it is.
    await releaseClaim(pool(), [d1!, d2!, d3!, d4!], 'run-stale');
    await markDelivered(pool(), [{ id: d1!, status: 204, digestId: null, claimToken: 'run-stale' }]);
    const staleClaim = await claimNext(pool(), channelId, { ...claimInput, batch: 4, claimToken: 'run-stale', delivered: [{ id: d2!, status: 204, digestId: null, claimToken: 'run-stale' }] });
    expect(staleClaim.claimed).toEqual([]);
    expect(await markRetry(pool(), [d3!], 'run-stale', { status: 503, reason: 'the receiver answered 503', delayMs: 0, retryWindowMs: 0 })).toEqual({ gaveUp: 0 });
    await markFailed(pool(), [d4!], 'run-stale', 410, 'gone');
    expect(await heldByCurrent()).toEqual(before);

    // The newer run's own outcomes are recorded.
    await markDelivered(pool(), [{ id: d1!, status: 204, digestId: null, claimToken: 'run-current' }]);
    await markFailed(pool(), [d2!], 'run-current', 410, 'gone');
    await markRetry(pool(), [d3!], 'run-current', { status: 503, reason: 'the receiver answered 503', delayMs: 60_000, retryWindowMs: options.retryWindowMs });
    await releaseClaim(pool(), [d4!], 'run-current');
    const after = new Map((await deliveriesOf(pool(), channelId)).map((delivery) => [delivery.id, delivery]));
    expect(after.get(d1!)).toMatchObject({ status: 'delivered', last_status: 204 });
    expect(after.get(d2!)).toMatchObject({ status: 'failed', last_error: 'gone' });
    expect(after.get(d3!)).toMatchObject({ status: 'pending', attempts: 2, last_error: 'the receiver answered 503' });
    expect(after.get(d4!)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after.get(d4!)!.next_attempt_at!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it('claims nothing for a disabled channel but answers its row, and answers no row for a deleted one', async () => {
    const { channelId } = await channelWithDeliveries(2);
    await pool().query(`UPDATE notification_channels SET enabled = false, disabled_reason = 'gone' WHERE id = $1`, [channelId]);

    const disabled = await claimNext(pool(), channelId, { ...claimInput, batch: 10 });
    expect(disabled.claimed).toEqual([]);
    expect(disabled.channel).toMatchObject({ id: channelId, enabled: false, disabled_reason: 'gone' });
    expect((await deliveriesOf(pool(), channelId)).every((d) => d.attempts === 0)).toBe(true);

    expect(await claimNext(pool(), 'wh_doesnotexist', { ...claimInput, batch: 10 })).toEqual({ channel: undefined, claimed: [], notices: [], backlog: 0 });
  });

  it('writes the delivered marks of many runs together, each with its status and digest id', async () => {
    const a = await channelWithDeliveries(2);
    const b = await channelWithDeliveries(1);
    const errors: unknown[] = [];
    const writer = createDeliveredWriter(pool(), (error) => errors.push(error));
    const [a1, a2] = (await claimNext(pool(), a.channelId, { ...claimInput, batch: 2, claimToken: 'run-a' })).claimed;
    const [b1] = (await claimNext(pool(), b.channelId, { ...claimInput, batch: 1, claimToken: 'run-b' })).claimed;

    await Promise.all([
      writer.write([
        { id: a1!.id, status: 200, digestId: 'dig_x', claimToken: 'run-a' },
        { id: a2!.id, status: 200, digestId: 'dig_x', claimToken: 'run-a' },
      ]),
      writer.write([{ id: b1!.id, status: 204, digestId: null, claimToken: 'run-b' }]),
      writer.write([]),
    ]);
    await writer.close();

    expect(errors).toEqual([]);
    expect((await deliveriesOf(pool(), a.channelId)).map((d) => [d.status, d.last_status, d.digest_id])).toEqual([
      ['delivered', 200, 'dig_x'],
      ['delivered', 200, 'dig_x'],
    ]);
    expect((await deliveriesOf(pool(), b.channelId)).map((d) => [d.status, d.last_status, d.digest_id])).toEqual([['delivered', 204, null]]);
  });

  it('claims due notice sends first, within the batch, under the same token and hold, and never twice', async () => {
    const { user, channelId, items } = await channelWithDeliveries(3);
    await pool().query('UPDATE notification_channels SET notices = true WHERE id = $1', [channelId]);
    const notice = await transaction(pool(), (client) => raiseNotice(client, { userId: user, kind: 'quota_warning' }, { message: '80 % used' }));
    expect(await fanOutNotice(pool(), notice!.id, 'open')).toEqual([channelId]);

    const first = await claimNext(pool(), channelId, { ...claimInput, batch: 2 });
    expect(first.notices).toEqual([
      {
        id: expect.stringMatching(/^dlv_/),
        message_id: `${notice!.id}:open`,
        attempts: 1,
        notice: {
          id: notice!.id, kind: 'quota_warning', state: 'open', source: null, channel_id: null, message: '80 % used',
          opened_at: notice!.openedAt.toISOString(), resolved_at: null,
        },
      },
    ]);
    // The notice took one place of the burst of two.
    expect(first.claimed.map((d) => d.feed_item_id)).toEqual([items[0]!.id]);
    const { rows } = await pool().query<{ claim_token: string; attempts: number }>('SELECT claim_token, attempts FROM notice_deliveries WHERE notice_id = $1', [notice!.id]);
    expect(rows).toEqual([{ claim_token: claimInput.claimToken, attempts: 1 }]);

    // Held: another run claims the alerts left, not the notice again.
    const second = await claimNext(pool(), channelId, { ...claimInput, claimToken: 'run-2', batch: 5 });
    expect(second.notices).toEqual([]);
    expect(second.claimed.map((d) => d.feed_item_id)).toEqual(items.slice(1).map((item) => item.id));

    // Given back, it is due again: the sweeper wakes a channel whose only due work is a notice.
    await releaseClaim(pool(), [first.notices[0]!.id], claimInput.claimToken, 'notice_deliveries');
    await releaseClaim(pool(), [...first.claimed, ...second.claimed].map((d) => d.id), claimInput.claimToken);
    await pool().query(`UPDATE deliveries SET status = 'delivered' WHERE channel_id = $1`, [channelId]);
    expect(await channelsWithDueDeliveries(pool())).toContain(channelId);

    // A channel switched off fails its pending notice sends with its alerts.
    await refuseChannel(pool(), channelId, { platform: 'discord', status: 404, reason: 'Discord webhook not found (deleted)' });
    const { rows: failed } = await pool().query<{ status: string; last_error: string }>('SELECT status::text AS status, last_error FROM notice_deliveries WHERE notice_id = $1', [notice!.id]);
    expect(failed).toEqual([{ status: 'failed', last_error: 'not sent: the channel was disabled (Discord webhook not found (deleted))' }]);
    expect(await channelsWithDueDeliveries(pool())).not.toContain(channelId);
    expect(await failPending(pool(), channelId, 'again')).toBe(0);
  });
  it('claims a notice’s resolution only once its opening to the channel is no longer pending', async () => {
    const user = await newAccount(env.database);
    const { id: channelId } = await addWebhook(pool(), user, { url: 'https://hooks.example.com/order', format: 'discord' });
    const condition = { userId: user, kind: 'source_failing' as const, source: '#order' };
    const notice = await transaction(pool(), (client) => raiseNotice(client, condition, { message: 'failing' }));
    await transaction(pool(), (client) => resolveNotice(client, condition));
    // Both sends at once, the resolution's created first (its job ran first).
    await fanOutNotice(pool(), notice!.id, 'resolved');
    await pool().query(`UPDATE notice_deliveries SET created_at = now() - interval '1 minute' WHERE notice_id = $1 AND state = 'resolved'`, [notice!.id]);

    const first = await claimNext(pool(), channelId, { ...claimInput, batch: 5 });
    expect(first.notices.map((n) => n.notice.state)).toEqual(['open']);
    // Still claimed (pending): the resolution waits.
    expect((await claimNext(pool(), channelId, { ...claimInput, claimToken: 'run-2', batch: 5 })).notices).toEqual([]);
    await pool().query(`UPDATE notice_deliveries SET status = 'delivered' WHERE id = $1`, [first.notices[0]!.id]);
    const after = await claimNext(pool(), channelId, { ...claimInput, claimToken: 'run-3', batch: 5 });
    expect(after.notices.map((n) => n.notice.state)).toEqual(['resolved']);
  });
});
