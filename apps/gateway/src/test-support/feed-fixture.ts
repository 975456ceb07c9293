import { transaction } from '@hashwatch/db';
import { insertFeedItems, type FeedItemRow, type NewFeedItem } from '@hashwatch/feed';
import { hashtagPost } from '@hashwatch/feed/testing';
import { request, type GatewayHarness } from './gateway-harness';
import { followCursor } from './paging';

export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export interface Page {
  data: { id: string; detected_at: string; [field: string]: unknown }[];
  next_cursor: string | null;
}

/** Helpers of the GET /v1/posts tests: feed items stored through the real writer, and feed reads. */
export function feedFixture(gw: GatewayHarness) {
  let counter = 0;

  function item(userId: string, extra: Partial<NewFeedItem> = {}): NewFeedItem {
    counter += 1;
    return hashtagPost(userId, counter, {
      xPostId: String(1_860_000_000_000_000_000n + BigInt(counter)),
      authorId: String(counter),
      text: `post ${counter} #btc`,
      ...extra,
    });
  }

  /** Stores the items in one transaction (so they share one detected_at) and returns them as stored. */
  async function store(items: NewFeedItem[]): Promise<FeedItemRow[]> {
    const { inserted } = await transaction(gw.env.database.db.pool, (client) => insertFeedItems(client, items));
    return inserted;
  }

  /** Stores `count` hashtag posts in transactions of `perTransaction`; returns them newest first, as the feed orders them. */
  async function storeMany(userId: string, count: number, perTransaction = 1): Promise<FeedItemRow[]> {
    const rows: FeedItemRow[] = [];
    for (let stored = 0; stored < count; stored += perTransaction) {
      rows.push(...(await store(Array.from({ length: Math.min(perTransaction, count - stored) }, () => item(userId)))));
    }
    return newestFirst(rows);
  }

  function newestFirst(rows: FeedItemRow[]): FeedItemRow[] {
    return [...rows].sort((a, b) => b.detectedAt.getTime() - a.detectedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  async function get(auth: Record<string, string>, query: Record<string, string | number> = {}) {
    return request(gw.app).get('/v1/posts').query(query).set(auth);
  }

  async function page(auth: Record<string, string>, query: Record<string, string | number> = {}): Promise<Page> {
    const res = await get(auth, query);
    expect(res.status).toBe(200);
    return res.body as Page;
  }

  /** Follows next_cursor from the first page to the last; returns every id in the order served. */
  function readAll(auth: Record<string, string>, query: Record<string, string | number>): Promise<{ ids: string[]; pages: number }> {
    return followCursor((pageQuery) => page(auth, pageQuery), query);
  }

  function expectInvalid(res: { status: number; body: unknown }, field: string): void {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining(field) } });
  }

  return { item, store, storeMany, get, page, readAll, expectInvalid };
}
