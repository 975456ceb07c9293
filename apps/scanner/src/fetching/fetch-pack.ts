import { XUnavailableError, type XClient, type XPost } from '@hashwatch/x-api';
import { snowflakeFloor } from '../snowflake';
import { sourceLowerBound } from '../matching/match-posts';
import type { Source } from '../sources/source';

/** One page of a packed query. */
export interface FetchedPage {
  /** Newest first. */
  posts: XPost[];
  /** meta.newest_id of this page (of page 1: the pack's sources' next cursor). */
  newestId: string | null;
  /** Null on the last page. */
  nextToken: string | null;
  /** Upstream calls this page took, retries included. */
  requests: number;
  /** Posts X billed for it: every post in `data` and `includes`. */
  postsRead: number;
  /** When its answer arrived (`now()`), for latency measurements. */
  receivedAt: number;
}

/** A whole packed query, every page collected. */
export interface FetchedPack {
  posts: XPost[];
  newestId: string | null;
  requests: number;
  postsRead: number;
  /** When the answer carrying each post arrived (post id → `now()`). */
  receivedAt: Map<string, number>;
}

export interface FetchOptions {
  /** Delays before each retry of a call X failed with a 5xx or timeout; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

// Recent search covers 7 days; X refuses bounds further back. A minute's margin covers clock skew.
const SEARCH_WINDOW_MS = 7 * 24 * 3600 * 1000 - 60_000;

/**
 * The since_id a pack searches from: the oldest lower bound among its sources (a cursor, or the creation of a
 * source that has none yet, as a snowflake), but never older than the search window.
 */
export function packSinceId(sources: readonly Pick<Source, 'sinceId' | 'notBefore'>[], nowMs: number): string {
  let lowest: bigint | null = null;
  for (const source of sources) {
    const bound = sourceLowerBound(source);
    if (lowest === null || bound < lowest) lowest = bound;
  }
  const windowStart = snowflakeFloor(nowMs - SEARCH_WINDOW_MS);
  return (lowest === null || lowest < windowStart ? windowStart : lowest).toString();
}

/**
 * Fetches one page of a packed query: page 1 without a token, then with the previous page's next_token and
 * the same since_id (X's paging docs). A 5xx or timeout is retried after the configured delays; any other
 * error (a rate limit included) is thrown.
 */
export async function fetchPage(x: XClient, query: string, sinceId: string, nextToken: string | null, options: FetchOptions): Promise<FetchedPage> {
  let requests = 0;
  for (let attempt = 0; ; attempt += 1) {
    try {
      requests += 1;
      const page = await x.searchRecent({ query, sinceId, maxResults: 100, ...(nextToken ? { nextToken } : {}) });
      return {
        posts: page.posts,
        newestId: page.meta.newestId,
        nextToken: page.meta.nextToken,
        requests,
        postsRead: page.posts.length + page.includedPosts.length,
        receivedAt: options.now(),
      };
    } catch (error) {
      const delay = options.retryDelaysMs[attempt];
      if (!(error instanceof XUnavailableError) || delay === undefined) throw error;
      await options.sleep(delay);
    }
  }
}

/** Runs a packed query to the end, following next_token until X returns none, and collects every page. */
export async function fetchPack(x: XClient, query: string, sinceId: string, options: FetchOptions): Promise<FetchedPack> {
  const result: FetchedPack = { posts: [], newestId: null, requests: 0, postsRead: 0, receivedAt: new Map() };
  let nextToken: string | null = null;
  let first = true;
  do {
    const page: FetchedPage = await fetchPage(x, query, sinceId, nextToken, options);
    if (first) result.newestId = page.newestId;
    first = false;
    for (const post of page.posts) result.receivedAt.set(post.id, page.receivedAt);
    result.posts.push(...page.posts);
    result.requests += page.requests;
    result.postsRead += page.postsRead;
    nextToken = page.nextToken;
  } while (nextToken);
  return result;
}
