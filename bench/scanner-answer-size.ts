// What reading the whole post costs in X's answers: the bytes of a search page, plain and gzip (X sends gzip to a
// client that asks, as axios does), and the client's parsing time, with the fields the scanner asked for before
// (the baseline) and the fields it asks for now (note_tweet, attachments, withheld, media.fields and the
// referenced_tweets / media expansions), for the same posts in the same run.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/scanner-answer-size.ts
//
// Needs no database. The X simulator runs in-process and holds X's recorded answers replayed with fresh ids
// (shared/reference/x-recorded: timelines full of retweets, escapes, links, media and quotes) and a synthetic
// mix like the ingest bench's rich workload. The recorded posts are read by id lookups (100 a call, as the poller
// and a search page read them), the synthetic ones by a search.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createSimulator, DEFAULT_APP_TOKEN, replayRecording, serveSimulator } from '@hashwatch/x-simulator';
import { MEDIA_FIELDS, parsePostPage, POST_EXPANSIONS, POST_FIELDS, USER_FIELDS } from '@hashwatch/x-api';
import { log, machineLine } from './scanner-support';

const RECORDED = path.resolve(__dirname, '..', '..', 'shared', 'reference', 'x-recorded');
const RECORDINGS = ['tweepy__home_timeline', 'tweepy__list_tweets', 'tweepy__liked_tweets', 'twarc__tweets_lookup_media_2023-01-05', 'twarc__tweets_lookup_many_urls_2023-01-05', 'twarc__tweets_lookup_retweet_mentions_2023-01-05'];
const SYNTHETIC = 500;
const PARSE_REPEATS = 200;

// The fields of the scanner's search before it read whole posts.
const BEFORE = { 'tweet.fields': 'created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id', expansions: 'author_id', 'user.fields': 'username,name' };
const NOW = { 'tweet.fields': POST_FIELDS, expansions: POST_EXPANSIONS, 'user.fields': USER_FIELDS, 'media.fields': MEDIA_FIELDS };

interface Measured {
  posts: number;
  included: number;
  bytes: number;
  gzipBytes: number;
  parseMs: number;
}

async function main(): Promise<void> {
  const sim = createSimulator({ rateLimits: { search_recent: { app: 10_000_000, user: 10_000_000 } } });
  const running = await serveSimulator(sim);
  try {
    const recordedIds: string[] = [];
    for (const name of RECORDINGS) {
      const recording = JSON.parse(readFileSync(path.join(RECORDED, `${name}.json`), 'utf8')) as { data: { id: string }[] };
      const { posts } = replayRecording(sim.state, recording);
      for (const post of recording.data) recordedIds.push(posts[post.id] as string);
    }
    for (let n = 0; n < SYNTHETIC; n += 1) {
      sim.state.injectPost({
        author: `writer${n % 50}`,
        text: `news ${n} about #sizebench${n % 7 === 0 ? ' & more <here>' : ''}`,
        ...(n % 3 === 0 ? { links: [`https://example.com/article/${n}?ref=x&utm=1`] } : {}),
        ...(n % 5 === 0 ? { media: [{ type: 'photo' as const, url: `https://pbs.twimg.com/media/p${n}.jpg`, width: 1200, height: 675, alt_text: 'a chart' }] } : {}),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the simulator's index lag
    const pages = async (fields: Record<string, string>, source: { query: string } | { ids: string[] }): Promise<Measured> => {
      const out: Measured = { posts: 0, included: 0, bytes: 0, gzipBytes: 0, parseMs: 0 };
      let nextToken: string | undefined;
      let offset = 0;
      do {
        const params =
          'query' in source
            ? new URLSearchParams({ query: source.query, max_results: '100', ...fields, ...(nextToken ? { next_token: nextToken } : {}) })
            : new URLSearchParams({ ids: source.ids.slice(offset, offset + 100).join(','), ...fields });
        const endpoint = 'query' in source ? '/2/tweets/search/recent' : '/2/tweets';
        const response = await fetch(`${running.url}${endpoint}?${params}`, { headers: { authorization: `Bearer ${DEFAULT_APP_TOKEN}`, 'accept-encoding': 'identity' } });
        const text = await response.text();
        if (!response.ok) throw new Error(`search answered ${response.status}: ${text}`);
        const body = JSON.parse(text) as { data?: unknown[]; includes?: { tweets?: unknown[] }; meta?: { next_token?: string } };
        out.posts += body.data?.length ?? 0;
        out.included += body.includes?.tweets?.length ?? 0;
        out.bytes += Buffer.byteLength(text);
        out.gzipBytes += gzipSync(text).length;
        const started = performance.now();
        for (let i = 0; i < PARSE_REPEATS; i += 1) parsePostPage(JSON.parse(text));
        out.parseMs += (performance.now() - started) / PARSE_REPEATS;
        nextToken = body.meta?.next_token;
        offset += 100;
      } while ('query' in source ? nextToken : offset < source.ids.length);
      return out;
    };
    log('| posts | fields | posts read (data + includes) | bytes | bytes/post | gzip bytes/post | parse ms/100 posts |');
    log('|---|---|---:|---:|---:|---:|---:|');
    const workloads: [string, { query: string } | { ids: string[] }][] = [
      [`${RECORDINGS.length} recorded answers (replayed), by id`, { ids: recordedIds }],
      ['synthetic mix (links, photos, escapes), by search', { query: '#sizebench' }],
    ];
    for (const [label, source] of workloads) {
      const before = await pages(BEFORE, source);
      const now = await pages(NOW, source);
      for (const [fields, m] of [['before (baseline)', before], ['now', now]] as const) {
        log(`| ${label} | ${fields} | ${m.posts} + ${m.included} | ${m.bytes} | ${(m.bytes / m.posts).toFixed(0)} | ${(m.gzipBytes / m.posts).toFixed(0)} | ${((m.parseMs / m.posts) * 100).toFixed(2)} |`);
      }
      log(`| ${label} | now / before | ${((now.posts + now.included) / (before.posts + before.included)).toFixed(2)}× | ${(now.bytes / before.bytes).toFixed(2)}× | | ${(now.gzipBytes / before.gzipBytes).toFixed(2)}× | ${(now.parseMs / before.parseMs).toFixed(2)}× |`);
    }
    log(machineLine());
  } finally {
    await running.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
