// 25 parallel track deletions of one account over a large x_posts, and what they cost another tenant: the erasure by
// index and per-source lock (@hashwatch/accounts eraseSource) against the erasure it replaced (baseline), reproduced
// here as it was: the scanner's one global advisory lock, then a delete that reads the text of every stored post.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/erasure.ts
//
// Needs PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/hashwatch; the role must be able to
// CREATE DATABASE). Makes its own database and removes it. ERASURE_BENCH_POSTS=<n> stored posts (default 1,000,000),
// ERASURE_BENCH_DELETES=<n> parallel deletions (default 25). The pool is the gateway's (10 connections).
// Figures: the 25 deletions' wall time, and the longest wait of another tenant's track deletion started meanwhile.
import { eraseSource } from '@hashwatch/accounts';
import { createDatabase, type Database } from '@hashwatch/db';
import { machineDescription } from './bench-support';
import { openScratch } from './bench-scratch';

const POSTS = Number(process.env.ERASURE_BENCH_POSTS ?? 1_000_000);
const DELETES = Number(process.env.ERASURE_BENCH_DELETES ?? 25);
const GATEWAY_POOL = 10;

const log = (line: string) => process.stdout.write(`${line}\n`);

// The deletion this change replaced (packages/accounts erasure.ts before it), for one hashtag track.
async function eraseTheOldWay(db: Database, userId: string, trackId: string, tag: string): Promise<void> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, 0)', [0x5ca7]);
    await client.query('DELETE FROM tracks WHERE id = $1 AND user_id = $2', [trackId, userId]);
    await client.query(
      `DELETE FROM x_posts x
        WHERE (strpos(lower(x.text), '#' || $1) > 0 OR strpos(lower(x.text), '$' || $1) > 0)
          AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = x.id)`,
      [tag],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function seed(db: Database, round: string): Promise<{ owner: string; tracks: { id: string; tag: string }[]; other: string; otherTrack: string }> {
  const account = async (email: string): Promise<string> => {
    const id = `usr_bench_${round}_${email}`;
    await db.pool.query(
      `INSERT INTO users (id, email, plan_id, hashtags_limit, accounts_limit, engagement_limit, webhooks_limit, alerts_limit,
                          scan_interval_seconds, engagement_refresh_seconds, rate_limit_per_minute, subscription_status,
                          current_period_start, current_period_end)
       SELECT $1, $2, id, 100, 100, 100, 10, 1000000, 10, 60, 600, 'active', now(), now() + interval '30 days' FROM plans WHERE id = 'business'`,
      [id, `${email}-${round}@example.com`],
    );
    return id;
  };
  const owner = await account('owner');
  const other = await account('other');
  const tracks = Array.from({ length: DELETES }, (_, i) => ({ id: `trk_bench_${round}_${i}`, tag: `bench${round}tag${i}` }));
  for (const track of [...tracks.map((t) => ({ ...t, user: owner })), { id: `trk_bench_${round}_other`, tag: `bench${round}other`, user: other }]) {
    await db.pool.query(`INSERT INTO tracks (id, user_id, hashtag, hashtag_norm) VALUES ($1, $2, $3, $3)`, [track.id, track.user, track.tag]);
    await db.pool.query(`INSERT INTO source_cursors (source_key, not_before) VALUES ($1, now())`, [`tag:${track.tag}`]);
  }
  // 20 posts per deleted tag stored in no feed (over the quota), recorded as the scanner does.
  await db.pool.query(
    `WITH p AS (
       INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at)
       SELECT $1 || lpad(g::text, 6, '0'), '7', 'poster', 'Poster', 'news #' || $2 || (g % $3), now() FROM generate_series(1, $3 * 20) AS g
       RETURNING id, text)
     INSERT INTO x_post_sources (source_key, x_post_id) SELECT 'tag:' || substring(text from '#(\\S+)'), id FROM p`,
    [`19${round}`, `bench${round}tag`, DELETES],
  );
  return { owner, tracks, other, otherTrack: `trk_bench_${round}_other` };
}

async function round(db: Database, label: 'baseline' | 'by index', roundId: string): Promise<{ wallMs: number; otherWaitMs: number }> {
  const { owner, tracks, other, otherTrack } = await seed(db, roundId);
  const started = Date.now();
  const deletions = Promise.all(
    tracks.map((track) => (label === 'baseline' ? eraseTheOldWay(db, owner, track.id, track.tag) : eraseSource(db.pool, 'tracks', owner, track.id))),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  const otherStarted = Date.now();
  await (label === 'baseline' ? eraseTheOldWay(db, other, otherTrack, `bench${roundId}other`) : eraseSource(db.pool, 'tracks', other, otherTrack));
  const otherWaitMs = Date.now() - otherStarted;
  await deletions;
  return { wallMs: Date.now() - started, otherWaitMs };
}

async function main(): Promise<void> {
  const scratch = await openScratch('erasure', 1);
  // Without the pools' session bounds (packages/db): the baseline ran without them, and its queue behind the global
  // lock would otherwise end in lock_timeout errors instead of a time.
  const db = createDatabase(scratch.databaseUrl, { max: GATEWAY_POOL, timeouts: false });
  try {
    log(`machine: ${machineDescription()}; ${POSTS.toLocaleString('en')} stored posts, ${DELETES} parallel deletions, pool ${GATEWAY_POOL}`);
    await db.pool.query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at)
       SELECT (1990000000000000000 + g)::text, (g % 50000)::text, 'user' || (g % 50000), 'User', 'Post ' || g || ' about #market' || (g % 5000) || ' and $eth', now()
         FROM generate_series(1, $1::int) AS g`,
      [POSTS],
    );
    await db.pool.query('ANALYZE');
    const rows: string[] = [];
    const results: Record<string, { wallMs: number; otherWaitMs: number }> = {};
    for (const [label, id] of [['baseline', '1'], ['by index', '2'], ['baseline', '3'], ['by index', '4']] as const) {
      const result = await round(db, label, id);
      results[`${label} ${id}`] = result;
      rows.push(`| ${label} | ${result.wallMs} ms | ${result.otherWaitMs} ms |`);
      log(`${label}: ${DELETES} deletions in ${result.wallMs} ms; another tenant's deletion waited ${result.otherWaitMs} ms`);
    }
    const best = (label: string, key: 'wallMs' | 'otherWaitMs') => Math.min(...Object.entries(results).filter(([name]) => name.startsWith(label)).map(([, r]) => r[key]));
    log('');
    log('| erasure | 25 deletions (wall) | another tenant waited |');
    log('|---|---|---|');
    for (const row of rows) log(row);
    log('');
    log(`by index ÷ baseline, best of two: wall ${(best('by index', 'wallMs') / best('baseline', 'wallMs')).toFixed(4)}x, other tenant ${(best('by index', 'otherWaitMs') / Math.max(1, best('baseline', 'otherWaitMs'))).toFixed(4)}x`);
  } finally {
    await db.close();
    await scratch.dispose();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
