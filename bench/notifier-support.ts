// What the notifier bench stores before it measures: webhook channels with sealed signing secrets and hashtag
// posts, as the gateway and the scanner store them. The bench's two processes share SECRETS_KEY.
import type pg from 'pg';
import { generateSigningSecret } from '@hashwatch/channels';
import { newId } from '@hashwatch/db';
import type { NewFeedItem } from '@hashwatch/feed';
import { createCipher, generateSecretsKey } from '@hashwatch/secrets';

/** Seals the channels' signing secrets here; the notifier child opens them with the same key. */
export const SECRETS_KEY = generateSecretsKey();
const cipher = createCipher(SECRETS_KEY);

/** A webhook channel to `url` on every source of the account (the column defaults), as PUT /notifications stores one. */
export async function addWebhook(pool: pg.Pool, userId: string, input: { url: string; format?: 'json' | 'slack' }): Promise<{ id: string }> {
  const id = newId('wh');
  await pool.query(
    `INSERT INTO notification_channels (id, user_id, kind, url, format, signing_secret_enc) VALUES ($1, $2, 'webhook', $3, $4, $5)`,
    [id, userId, input.url, input.format ?? 'json', cipher.encrypt(generateSigningSecret())],
  );
  return { id };
}

let posts = 0;

/** A new #btc post by @alice for `userId`, detected now. */
export function post(userId: string): NewFeedItem {
  posts += 1;
  const n = `${Date.now()}${posts}`;
  return {
    userId, dedupeKey: `x:${n}`, type: 'hashtag', hashtag: 'btc', account: null, sources: ['#btc'], xPostId: n, authorId: `u${n}`,
    author: 'alice', authorName: 'Alice', text: `post ${n} about #btc`, url: `https://x.com/alice/status/${n}`, postedAt: new Date(),
  };
}
