import type pg from 'pg';
import type { XPost } from '@hashwatch/x-api';
import { postContent } from '../matching/post-content';

// An edit of a stored post: X gives the new version a new id and lists every version in edit_history_tweet_ids,
// so the post is found by its chain's first id (x_posts.id). A version newer than the one stored replaces the
// post's text and what it shows, in x_posts and in every account's item of it (engagement items of it keep their
// own text), and records the chain, whose every version the engagement poller then reads (X counts engagement
// per version). An older or the same version changes nothing, so replicas and pages seeing one edit write it once.
// A post deleted on X stays deleted.
//
// Two statements: x_posts rows (sorted by id) first, feed items after, as every scanner transaction takes them.
const EDIT_POSTS = `
UPDATE x_posts p
   SET version_ids = ARRAY(SELECT jsonb_array_elements_text(v.versions::jsonb)), text = v.text, lang = v.lang, edited_at = now()
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, version_id, versions, text, lang)
 WHERE p.id = v.id AND p.deleted_at IS NULL
   AND v.version_id::numeric > COALESCE(p.version_ids[array_upper(p.version_ids, 1)], p.id)::numeric
RETURNING p.id, p.edited_at`;

const EDIT_ITEMS = `
UPDATE feed_items f
   SET text = v.text, url = v.url, lang = v.lang, urls = v.urls::json, media = v.media::json, quoted = v.quoted::json,
       edited_at = v.edited_at
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
    AS v(id, text, url, lang, urls, media, quoted, edited_at)
 WHERE f.x_post_id = v.id AND f.type <> 'engagement' AND NOT f.deleted`;

const listJson = (list: readonly unknown[]) => (list.length === 0 ? null : JSON.stringify(list));

/**
 * Records the newer versions among `posts` (edits of posts stored before) inside the caller's transaction, and
 * updates the items that show them. Answers how many posts it found edited.
 */
export async function recordEdits(client: pg.PoolClient, posts: readonly XPost[]): Promise<number> {
  if (posts.length === 0) return 0;
  const newest = new Map<string, XPost>();
  for (const post of posts) {
    const held = newest.get(post.rootId);
    if (!held || BigInt(held.id) < BigInt(post.id)) newest.set(post.rootId, post);
  }
  const chains = [...newest.values()].sort((a, b) => (a.rootId < b.rootId ? -1 : a.rootId > b.rootId ? 1 : 0));
  const { rows } = await client.query<{ id: string; edited_at: Date }>(EDIT_POSTS, [
    chains.map((post) => post.rootId),
    chains.map((post) => post.id),
    chains.map((post) => JSON.stringify(post.editHistoryPostIds)),
    chains.map((post) => post.text),
    chains.map((post) => post.lang),
  ]);
  if (rows.length === 0) return 0;
  const edited = rows.map((row) => ({ post: newest.get(row.id) as XPost, at: row.edited_at }));
  const contents = edited.map(({ post }) => postContent(post));
  await client.query(EDIT_ITEMS, [
    edited.map(({ post }) => post.rootId),
    edited.map(({ post }) => post.text),
    contents.map((content) => content.url),
    contents.map((content) => content.lang),
    contents.map((content) => listJson(content.urls)),
    contents.map((content) => listJson(content.media)),
    contents.map((content) => (content.quoted ? JSON.stringify(content.quoted) : null)),
    edited.map(({ at }) => at.toISOString()),
  ]);
  return rows.length;
}
