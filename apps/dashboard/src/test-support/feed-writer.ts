import { inject } from 'vitest';
import { db, feed, feedTesting, pg, type PgPool } from './server-tools';

/**
 * Stores feed items in the run's database through the feed's own writer (@hashwatch/feed insertFeedItems, the
 * scanner's), as the gateway's tests do: each call is one transaction, so its items share one detected_at.
 */
export function feedWriter() {
  let pool: PgPool | undefined;
  let counter = 0;
  const open = (): PgPool => {
    if (!pool) {
      pool = new (pg().Pool)({ connectionString: inject('databaseUrl'), max: 2 });
      pool.on('error', () => undefined);
    }
    return pool;
  };

  /** `texts.length` hashtag posts (#btc) for the account, in one transaction; answers their ids in the order stored. */
  async function store(userId: string, texts: string[]): Promise<string[]> {
    const items = texts.map((text) => {
      counter += 1;
      const n = `${Date.now()}${counter}`;
      return feedTesting().hashtagPost(userId, n, { text, author: `author${counter}`, authorName: `Author ${counter}` });
    });
    const { inserted } = await db().transaction(open(), (client) => feed().insertFeedItems(client, items));
    return inserted.map((row) => row.id);
  }

  return { store, close: async () => pool?.end() };
}
