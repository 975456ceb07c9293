import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, HashwatchError, type FeedItem } from '../api/client';

export interface FeedFilters {
  type?: 'hashtag' | 'account' | 'engagement';
  hashtag?: string;
  account?: string;
}

const PAGE = 50;
/** Before any item is seen: every item is new. */
const BEGINNING = '1970-01-01T00:00:00.000Z';

/** No answer, or the server's trouble: the feed tries again. Anything else (a 401, a bad filter) is for the page. */
function isTransient(failure: unknown): boolean {
  return failure instanceof HashwatchError && (failure.status === 0 || failure.status >= 500);
}

/**
 * The newest page, read again every `intervalMs` while the service cannot be reached (a gateway restarting), each
 * failure shown meanwhile, as the watch after it does: an open feed page comes back by itself.
 */
async function firstPage(query: FeedFilters, intervalMs: number, signal: AbortSignal, onRetry: (failure: unknown) => void) {
  for (;;) {
    try {
      return await api.get('/v1/posts', { params: { query: { ...query, limit: PAGE } }, signal });
    } catch (failure) {
      if (signal.aborted || !isTransient(failure)) throw failure;
      onRetry(failure);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/**
 * The feed for `filters`: the newest page, older pages on demand (cursor), and new items put on top as they are
 * detected, through the SDK's `since` watch (each item once; a repeat id is dropped anyway).
 */
export function useLiveFeed(filters: FeedFilters, intervalMs = 3_000) {
  const [items, setItems] = useState<FeedItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [status, setStatus] = useState<'loading' | 'ready' | 'more'>('loading');
  const [error, setError] = useState<unknown>(null);
  const seen = useRef(new Set<string>());
  // Which filter's run an answer belongs to: an older page that arrives after the filters changed is dropped.
  const run = useRef(0);
  const queryClient = useQueryClient();
  const key = JSON.stringify(filters);

  useEffect(() => {
    const controller = new AbortController();
    const generation = ++run.current;
    seen.current = new Set();
    setItems([]);
    setCursor(null);
    setStatus('loading');
    setError(null);
    const query = JSON.parse(key) as FeedFilters;
    const follow = async () => {
      const first = await firstPage(query, intervalMs, controller.signal, (failure) => {
        if (generation === run.current) setError(failure);
      });
      if (controller.signal.aborted) return;
      setError(null);
      first.data.forEach((item) => seen.current.add(item.id));
      setItems(first.data);
      setCursor(first.next_cursor);
      setStatus('ready');
      const since = first.data[0]?.detected_at ?? BEGINNING;
      for await (const item of api.watch({ since, query, intervalMs, signal: controller.signal })) {
        if (seen.current.has(item.id)) continue;
        seen.current.add(item.id);
        setItems((current) => [item, ...current]);
      }
    };
    follow().catch((failure: unknown) => {
      if (controller.signal.aborted || generation !== run.current) return;
      setError(failure);
      setStatus('ready');
      // A session that ended is the app's to handle (it re-reads the session and goes to sign-in).
      if (failure instanceof HashwatchError && failure.status === 401) void queryClient.invalidateQueries({ queryKey: ['session'] });
    });
    return () => controller.abort();
  }, [key, intervalMs, queryClient]);

  const loadOlder = useCallback(async () => {
    if (!cursor) return;
    const generation = run.current;
    setStatus('more');
    try {
      const page = await api.get('/v1/posts', { params: { query: { ...(JSON.parse(key) as FeedFilters), limit: PAGE, cursor } } });
      if (generation !== run.current) return;
      const fresh = page.data.filter((item) => !seen.current.has(item.id));
      fresh.forEach((item) => seen.current.add(item.id));
      setItems((current) => [...current, ...fresh]);
      setCursor(page.next_cursor);
    } catch (failure) {
      if (generation === run.current) setError(failure);
    } finally {
      if (generation === run.current) setStatus('ready');
    }
  }, [cursor, key]);

  return { items, status, error, hasOlder: cursor !== null, loadOlder };
}
