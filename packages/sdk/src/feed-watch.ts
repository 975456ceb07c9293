import type { FeedItem, QueryOf } from './api-types';
import { HashwatchError } from './hashwatch-error';
import { sleep } from './rate-limit-wait';

/** The filters of `GET /v1/posts` a watch may narrow the feed with (`hashtag`, `account`, `type`). */
export type FeedFilters = Omit<QueryOf<'/v1/posts'>, 'since' | 'limit'>;

export interface WatchOptions {
  /**
   * Yield only items detected strictly after this instant (ISO 8601 with a zone), e.g. the `detected_at` of
   * the last item a previous watch yielded. Omitted: items detected after the watch starts.
   */
  since?: string;
  /**
   * The `id` of the last item yielded at `since`. Items stored in one transaction share a `detected_at`; a
   * watch stopped part-way through such a group resumes exactly when it gets both, skipping that group's
   * items up to this id (watch yields a group in `id` order) and nothing else.
   */
  sinceId?: string;
  query?: FeedFilters;
  /** Pause between polls, in ms (default 2000); also the pause before retrying a failed poll. */
  intervalMs?: number;
  /** Ends the watch: the loop returns, without an error. */
  signal?: AbortSignal;
}

/** One page of `GET /v1/posts` with the given query. */
export type ReadFeedPage = (
  query: QueryOf<'/v1/posts'> & { cursor?: string },
  signal: AbortSignal | undefined,
) => Promise<{ data: FeedItem[]; next_cursor: string | null }>;

interface Position {
  since: string;
  /** Set while items at `since` may remain unseen: only those with a greater id are new. */
  id: string | undefined;
}

const PAGE_SIZE = 100;

/** Feed order as watch yields it: `detected_at`, then `id` by code unit (not the database's collation). */
function compareItems(a: FeedItem, b: FeedItem): number {
  return Date.parse(a.detected_at) - Date.parse(b.detected_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isNew(item: FeedItem, position: Position | undefined, sinceMs: number): boolean {
  if (position?.id === undefined) return true;
  const at = Date.parse(item.detected_at);
  return at > sinceMs || (at === sinceMs && item.id > position.id);
}

/** Every item the feed has after `position`, oldest first: one poll, following `next_cursor` to the end. */
async function readNew(read: ReadFeedPage, filters: FeedFilters, position: Position | undefined, signal?: AbortSignal): Promise<FeedItem[]> {
  const sinceMs = position ? Date.parse(position.since) : Number.NaN;
  // `since` is exclusive and the feed keeps milliseconds: 1 ms earlier reads the rest of the group at `since`.
  const since = position === undefined ? undefined : position.id === undefined ? position.since : new Date(sinceMs - 1).toISOString();
  const query = { ...filters, limit: PAGE_SIZE, ...(since === undefined ? {} : { since }) };
  const items: FeedItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor === undefined ? query : { ...query, cursor }, signal);
    items.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return items.filter((item) => isNew(item, position, sinceMs)).sort(compareItems);
}

/** A failed poll worth retrying: no answer, the server's trouble, or a rate limit longer than the client waits. */
function isTransient(error: unknown): error is HashwatchError {
  return error instanceof HashwatchError && (error.status === 0 || error.status === 429 || error.status >= 500);
}

function startPosition(options: WatchOptions): Position | undefined {
  if (options.since === undefined) return undefined;
  if (options.sinceId !== undefined && Number.isNaN(Date.parse(options.since))) {
    throw new TypeError(`since: not an ISO 8601 instant: ${options.since}`);
  }
  return { since: options.since, id: options.sinceId };
}

/** Polls the feed with `since` and yields each item once, oldest first, until `signal` aborts. */
export async function* watchFeed(read: ReadFeedPage, options: WatchOptions = {}): AsyncGenerator<FeedItem, void, undefined> {
  const { signal, query: filters = {}, intervalMs = 2000 } = options;
  let position = startPosition(options);
  let started = position !== undefined;
  while (!signal?.aborted) {
    try {
      if (!started) {
        // Where "now" is, by the server's clock: the newest item so far (none: everything to come is new).
        const newest = (await read({ ...filters, limit: 1 }, signal)).data[0];
        position = newest ? { since: newest.detected_at, id: undefined } : undefined;
        started = true;
      } else {
        const items = await readNew(read, filters, position, signal);
        for (const item of items) {
          yield item;
          position = { since: item.detected_at, id: item.id };
        }
        // A poll sees a transaction's items all at once (the feed clock), so the whole group at `since` is seen.
        if (position) position = { since: position.since, id: undefined };
      }
      await sleep(intervalMs, signal);
    } catch (error) {
      if (signal?.aborted) return;
      if (!isTransient(error)) throw error;
      try {
        await sleep(Math.max(intervalMs, (error.retryAfterSeconds ?? 0) * 1000), signal);
      } catch {
        return;
      }
    }
  }
}
