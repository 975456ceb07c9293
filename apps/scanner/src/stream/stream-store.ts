import type pg from 'pg';
import type { XPost } from '@hashwatch/x-api';
import { countStored, relay, store, type ScanContext, type TickSummary } from '../scan-pack';
import { loadSubscriptions, type StorePackResult } from '../storing/store-pack';
import { parseSourceKey, sourceKey, type Source } from '../sources/source';
import { recordLastPosts } from './coverage';

/** A source_cursors row as the stream's queries select it (SOURCE_COLUMNS). */
export interface SourceRow {
  source_key: string;
  since_id: string | null;
  not_before: Date;
  interval_seconds: number;
  failures: number;
}

export const SOURCE_COLUMNS = 'source_key, since_id, not_before, interval_seconds, failures';

/** The sources of rows whose key parses (every row the scanner writes does). */
export function toSources(rows: readonly SourceRow[]): Source[] {
  return rows.flatMap((row): Source[] => {
    const parsed = parseSourceKey(row.source_key);
    return parsed ? [{ key: row.source_key, ...parsed, sinceId: row.since_id, notBefore: row.not_before, intervalSeconds: row.interval_seconds, failures: row.failures }] : [];
  });
}

// The sources a post can hit (its hashtags, cashtags and author, as matchPosts reads them), and account sources
// whose resolved X user id is the post's author when X left the author out of includes.
const SOURCES_OF_POSTS = `
SELECT s.source_key, s.since_id, s.not_before, s.interval_seconds, s.failures
  FROM source_cursors s
 WHERE s.source_key = ANY($1::text[])
    OR s.source_key IN (SELECT 'user:' || a.username_norm FROM account_tracks a WHERE a.x_user_id = ANY($2::text[]) AND a.status = 'active')
 ORDER BY s.source_key`;

/** The source keys a post can match: `tag:` per hashtag and cashtag, `user:` for its author. */
export function postSourceKeys(post: XPost): string[] {
  const keys = new Set<string>();
  for (const entity of [...post.hashtags, ...post.cashtags]) keys.add(sourceKey('tag', entity.tag.toLowerCase()));
  if (post.author) keys.add(sourceKey('user', post.author.username.toLowerCase()));
  return [...keys];
}

/** The sources (cursor and creation, as matching needs them) the posts can hit. */
export async function sourcesOfPosts(db: Pick<pg.Pool, 'query'>, posts: readonly XPost[]): Promise<Source[]> {
  const keys = [...new Set(posts.flatMap(postSourceKeys))].sort();
  const authors = [...new Set(posts.flatMap((post) => (post.author ? [] : post.authorId ? [post.authorId] : [])))].sort();
  if (keys.length === 0 && authors.length === 0) return [];
  const { rows } = await db.query<SourceRow>(SOURCES_OF_POSTS, [keys, authors]);
  // No cursor bound: a post the stream or a back-fill brings may be older than a cursor a search set before the
  // post was indexed. The feed's one item per account and post keeps a post seen twice from being stored twice.
  return toSources(rows).map((source) => ({ ...source, sinceId: null }));
}

/**
 * Stores posts the stream delivered (or a back-fill found), in one transaction, for every source they hit: the
 * same matching, quota, feed and alert hand-off as a search page, with no cursor moved (the stream's coverage is
 * recorded apart). A post stored before (by a search, a back-fill or the stream itself) gains no second item,
 * unit or alert. `postsRead` and `requests` are what X billed for them: the stream bills each delivered post and no
 * request.
 */
export async function storePosts(
  ctx: Pick<ScanContext, 'pool' | 'queues' | 'logger' | 'metrics' | 'notices'>,
  posts: readonly XPost[],
  billed: { postsRead: number; requests: number },
  summary: TickSummary,
): Promise<StorePackResult | null> {
  const unique = [...new Map(posts.map((post) => [post.id, post])).values()];
  const sources = await sourcesOfPosts(ctx.pool, unique);
  if (sources.length === 0) return null;
  const subscriptions = await loadSubscriptions(ctx.pool, sources);
  const stored = await store(ctx, { sources, claimId: 0, posts: unique, postsRead: billed.postsRead, requests: billed.requests, subscriptions, notices: ctx.notices });
  if (stored.inserted.length > 0) await relay(ctx, stored.outbox);
  countStored(ctx, stored, summary);
  // Scan health: a search's completing batch moves last_post_at; streamed and back-filled posts move it here.
  await recordLastPosts(ctx.pool, stored.lastPostAt).catch((error: unknown) => ctx.logger.warn('last_post_at not recorded', { error }));
  return stored;
}
