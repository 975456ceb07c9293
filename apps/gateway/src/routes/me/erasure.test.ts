import type pg from 'pg';
import { rowsHolding } from '@hashwatch/testing';
import { emailLimitKey } from '../session/sign-in.service';
import { request, useGateway } from '../../test-support/gateway-harness';

// Distinctive values, so a search of every row's text finds only what was written for them.
const SOLO_TAG = 'zqsolotag';
const SHARED_TAG = 'zqsharedtag';
const HANDLE = 'zqsolohandle';
const SOLO_POST = '1990000000000000001';
const SHARED_POST = '1990000000000000002';
const UNSTORED_POST = '1990000000000000003';


/**
 * A stored post; `unstoredFor`: the sources that matched it when the scanner stored it in no feed (over a quota),
 * which it records in x_post_sources (apps/scanner/src/storing/link-unstored.ts).
 */
async function seedPost(pool: pg.Pool, id: string, text: string, author = 'someone', unstoredFor: string[] = []): Promise<void> {
  await pool.query(
    `WITH p AS (INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at) VALUES ($1, '42', $3, 'Some One', $2, now()))
     INSERT INTO x_post_sources (source_key, x_post_id) SELECT k, $1 FROM unnest($4::text[]) AS k`,
    [id, text, author, unstoredFor],
  );
}

async function seedItem(pool: pg.Pool, userId: string, postId: string, source: string): Promise<string> {
  const id = `post_${userId.slice(4)}${postId.slice(-3)}`;
  await pool.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author, author_name, text, url, posted_at, detected_at)
     VALUES ($1, $2, $3, 'hashtag', $4, ARRAY['#' || $4], $5, '@someone', 'Some One', 'a post about #' || $4, 'https://x.com/i/status/' || $5, now(), clock_timestamp())`,
    [id, userId, `x:${postId}`, source, postId],
  );
  return id;
}

describe('erasure of an account and of its sources', () => {
  const gw = useGateway();
  const pool = () => gw.env.database.db.pool;

  it('DELETE /me leaves no row and no Redis key of the account, and keeps what another account still needs', async () => {
    const a = await gw.account('pro');
    const b = await gw.account('pro');
    for (const hashtag of [SOLO_TAG, SHARED_TAG]) await request(gw.app).post('/v1/tracks').set(a.auth).send({ hashtag }).expect(201);
    await request(gw.app).post('/v1/accounts').set(a.auth).send({ username: HANDLE }).expect(201);
    await request(gw.app).post('/v1/tracks').set(b.auth).send({ hashtag: SHARED_TAG }).expect(201);
    await pool().query(
      `INSERT INTO source_cursors (source_key, not_before, since_id) VALUES ('tag:${SOLO_TAG}', now(), '1'), ('tag:${SHARED_TAG}', now(), '1'), ('user:${HANDLE}', now(), '1')`,
    );
    await seedPost(pool(), SOLO_POST, `only a reads #${SOLO_TAG}`);
    await seedPost(pool(), SHARED_POST, `both read #${SHARED_TAG}`);
    // Matched for a but never stored in any feed (over its quota).
    await seedPost(pool(), UNSTORED_POST, `over the quota`, HANDLE, [`user:${HANDLE}`]);
    const soloItem = await seedItem(pool(), a.accountId, SOLO_POST, SOLO_TAG);
    const aShared = await seedItem(pool(), a.accountId, SHARED_POST, SHARED_TAG);
    const bShared = await seedItem(pool(), b.accountId, SHARED_POST, SHARED_TAG);
    await pool().query(
      `INSERT INTO engagement_states (x_post_id, interval_seconds, poll_until, next_poll_at) VALUES ($1, 60, now(), now()), ($2, 60, now(), now())`,
      [SOLO_POST, SHARED_POST],
    );
    // Both accounts' upstream cost this period: a's per source, b's for the tag they share.
    await pool().query(
      `WITH p AS (INSERT INTO usage_periods (user_id, period_start, period_end, upstream_posts_read)
                  SELECT id, current_period_start, current_period_end, 3 FROM users WHERE id IN ($1, $2))
       INSERT INTO upstream_usage_by_source (user_id, period_start, source, reads, requests)
       SELECT u.id, u.current_period_start, v.source, 1, 0.5
         FROM (VALUES ($1, '#${SOLO_TAG}'), ($1, '#${SHARED_TAG}'), ($1, '@${HANDLE}'), ($2, '#${SHARED_TAG}')) AS v(user_id, source)
         JOIN users u ON u.id = v.user_id`,
      [a.accountId, b.accountId],
    );
    const channel = `wh_${a.accountId.slice(4)}`;
    await pool().query(`INSERT INTO notification_channels (id, user_id, kind, url) VALUES ($1, $2, 'webhook', 'https://example.com/hook')`, [channel, a.accountId]);
    await pool().query(
      `INSERT INTO deliveries (id, user_id, channel_id, feed_item_id, message_id) VALUES ('dlv_erasure1', $1, $2, $3, 'msg_erasure1')`,
      [a.accountId, channel, soloItem],
    );
    // One batch row with both accounts' items, a drain job of a's channel, a sample of a's post.
    await pool().query(
      `INSERT INTO outbox_jobs (queue, name, job_id, payload) VALUES
         ('alert-routing', 'route-alerts', 'routes-1', $1::jsonb),
         ('alert-deliveries', 'drain-channel', 'drain-1', $2::jsonb),
         ('engagement', 'sample-engagement', 'sample-1', $3::jsonb)`,
      [
        JSON.stringify([{ jobId: 'routes-1', payload: { items: [{ feedItemId: aShared, userId: a.accountId }, { feedItemId: bShared, userId: b.accountId }] } }]),
        JSON.stringify({ channelId: channel }),
        JSON.stringify({ xPostId: SOLO_POST }),
      ],
    );
    const prefix = gw.env.queuePrefix;
    const redis = gw.env.redis;
    await redis.hset(`${prefix}:engagement:account-fingerprints`, a.accountId, 'f1', b.accountId, 'f2');
    await redis.set(`${prefix}:engagement:reply-cursor:${SOLO_POST}`, ',5');
    await redis.set(`${prefix}:engagement:reply-cursor:${SHARED_POST}`, ',6');
    await redis.set(`${prefix}:notifier:digest:{${channel}}`, 'x');
    await redis.set(`${prefix}:notifier:retrying:{${channel}}`, '1');
    await redis.set(`${prefix}:rl:two-factor:${a.accountId}`, '1');
    await redis.set(`${prefix}:rl:password-change:${a.accountId}`, '1');
    await redis.set(`${prefix}:rl:2fa-login:${a.accountId}`, '1');
    // The dashboard's rows and counters: a checkout, a session, a sign-in step, a reset link, failed sign-ins by email.
    const email = (await request(gw.app).get('/v1/me').set(a.auth).expect(200)).body.email as string;
    await pool().query(
      `WITH c AS (INSERT INTO checkouts (id, user_id, plan_id, provider, url) VALUES ('chk_erase', $1, 'pro', 'manual', 'http://localhost:3000/checkout/chk_erase'))
       , s AS (INSERT INTO sessions (id, user_id, token_hash, expires_at) VALUES ('ses_erase', $1, '\x01', now() + interval '1 day'))
       , l AS (INSERT INTO login_challenges (token_hash, user_id, expires_at) VALUES ('\x02', $1, now() + interval '5 minutes'))
       INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ('\x03', $1, now() + interval '30 minutes')`,
      [a.accountId],
    );
    await redis.set(`${prefix}:rl:signin-email:${emailLimitKey(email)}`, '3');

    const needles = [a.accountId, SOLO_TAG, HANDLE, SOLO_POST, UNSTORED_POST, channel, 'chk_erase', 'ses_erase'];
    expect((await rowsHolding(pool(), needles)).length).toBeGreaterThan(0);
    const res = await request(gw.app).delete('/v1/me').set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });

    expect(await rowsHolding(pool(), needles)).toEqual([]);
    // b's own rows, and the shared ones b still needs.
    const kept = await rowsHolding(pool(), [b.accountId, SHARED_TAG, SHARED_POST]);
    const tables = new Set(kept.map((found) => found.table));
    for (const table of ['users', 'tracks', 'feed_items', 'feed_item_sources', 'source_cursors', 'x_posts', 'engagement_states', 'outbox_jobs', 'usage_periods', 'upstream_usage_by_source']) {
      expect(tables).toContain(table);
    }
    const { rows: outbox } = await pool().query<{ payload: unknown }>('SELECT payload FROM outbox_jobs');
    expect(outbox).toEqual([{ payload: [{ jobId: 'routes-1', payload: { items: [{ feedItemId: bShared, userId: b.accountId }] } }] }]);

    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.filter((key) => [...needles, emailLimitKey(email)].some((needle) => key.includes(needle)))).toEqual([]);
    for (const table of ['login_challenges', 'password_resets']) {
      expect((await pool().query(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [a.accountId])).rows[0]).toEqual({ n: 0 });
    }
    expect(await redis.hgetall(`${prefix}:engagement:account-fingerprints`)).toEqual({ [b.accountId]: 'f2' });
    expect(await redis.get(`${prefix}:engagement:reply-cursor:${SHARED_POST}`)).toBe(',6');
  });

  it('DELETE /tracks/{id} and DELETE /accounts/{id} remove the cursor and unstored posts only that source needed', async () => {
    const a = await gw.account('pro');
    const b = await gw.account('pro');
    const solo = await request(gw.app).post('/v1/tracks').set(a.auth).send({ hashtag: `${SOLO_TAG}2` }).expect(201);
    const shared = await request(gw.app).post('/v1/tracks').set(a.auth).send({ hashtag: `${SHARED_TAG}2` }).expect(201);
    await request(gw.app).post('/v1/tracks').set(b.auth).send({ hashtag: `${SHARED_TAG}2` }).expect(201);
    const handle = await request(gw.app).post('/v1/accounts').set(a.auth).send({ username: `${HANDLE}2` }).expect(201);
    await pool().query(
      `INSERT INTO source_cursors (source_key, not_before) VALUES ('tag:${SOLO_TAG}2', now()), ('tag:${SHARED_TAG}2', now()), ('user:${HANDLE}2', now())`,
    );
    await seedPost(pool(), '1990000000000000011', `unstored #${SOLO_TAG}2`, 'someone', [`tag:${SOLO_TAG}2`]);
    await seedPost(pool(), '1990000000000000012', `stored #${SOLO_TAG}2`);
    await seedPost(pool(), '1990000000000000013', 'unstored by the handle', `${HANDLE}2`, [`user:${HANDLE}2`]);
    // Matched by both tags and stored in no feed: the tag b still tracks keeps it.
    await seedPost(pool(), '1990000000000000014', `unstored #${SOLO_TAG}2 #${SHARED_TAG}2`, 'someone', [`tag:${SOLO_TAG}2`, `tag:${SHARED_TAG}2`]);
    await seedItem(pool(), a.accountId, '1990000000000000012', `${SOLO_TAG}2`);

    await request(gw.app).delete(`/v1/tracks/${solo.body.id}`).set(a.auth).expect(200);
    await request(gw.app).delete(`/v1/tracks/${shared.body.id}`).set(a.auth).expect(200);
    await request(gw.app).delete(`/v1/accounts/${handle.body.id}`).set(a.auth).expect(200);

    const { rows: cursors } = await pool().query<{ source_key: string }>(`SELECT source_key FROM source_cursors WHERE source_key LIKE '%2' ORDER BY 1`);
    expect(cursors.map((row) => row.source_key)).toEqual([`tag:${SHARED_TAG}2`]);
    const { rows: posts } = await pool().query<{ id: string }>(`SELECT id FROM x_posts WHERE id LIKE '199000000000000001%' ORDER BY 1`);
    // The post a's feed still holds stays with its item; the one a tag b tracks recorded stays with that tag.
    expect(posts.map((row) => row.id)).toEqual(['1990000000000000012', '1990000000000000014']);
    const { rows: links } = await pool().query<{ source_key: string; x_post_id: string }>(`SELECT source_key, x_post_id FROM x_post_sources ORDER BY 1, 2`);
    expect(links).toEqual([{ source_key: `tag:${SHARED_TAG}2`, x_post_id: '1990000000000000014' }]);
    await request(gw.app).delete(`/v1/tracks/${solo.body.id}`).set(a.auth).expect(404);
  });

  it('a deletion held up on one source never holds up another tenant\'s deletion of another source', async () => {
    const a = await gw.account('pro');
    const b = await gw.account('pro');
    const held = await request(gw.app).post('/v1/tracks').set(a.auth).send({ hashtag: 'heldsource' }).expect(201);
    const other = await request(gw.app).post('/v1/tracks').set(b.auth).send({ hashtag: 'freesource' }).expect(201);
    // Something holds a's track row (a scanner transaction storing for it, say): a's deletion takes its locks, then
    // waits for that row.
    const blocker = await pool().connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM tracks WHERE id = $1 FOR UPDATE', [held.body.id]);
      const waiting = request(gw.app).delete(`/v1/tracks/${held.body.id}`).set(a.auth).then((res) => res.status);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      await request(gw.app).delete(`/v1/tracks/${other.body.id}`).set(b.auth).expect(200);
      expect(Date.now() - started).toBeLessThan(1_000);
      await blocker.query('COMMIT');
      expect(await waiting).toBe(200);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }
  });
});
