import type pg from 'pg';

// X's Developer Agreement asks that what was deleted on X (or that X asks to remove: a protected or suspended
// author, a post failing compliance) be deleted here too. The post keeps its id and times, and loses its text and
// author name in x_posts (`deleted_at`), and every item showing it loses its text, author name, links, media and
// quote and shows `deleted: true`. Engagement items about it keep their own text: a reply is another post.
const ERASE_DELETED = `
WITH posts AS (
  UPDATE x_posts SET text = '', author_name = '', deleted_at = $2 WHERE id = ANY ($1::text[]) AND deleted_at IS NULL
  RETURNING id
), items AS (
  UPDATE feed_items f
     SET text = '', author_name = '', urls = NULL, media = NULL, quoted = NULL, deleted = true
   WHERE f.x_post_id = ANY ($1::text[]) AND f.type <> 'engagement' AND NOT f.deleted
  RETURNING 1
)
SELECT (SELECT count(*) FROM posts)::int AS posts, (SELECT count(*) FROM items)::int AS items`;

/**
 * Erases the posts (by x_posts id: an edit chain's first id) inside the caller's transaction; answers how many posts
 * and items it erased (none twice).
 */
export async function erasePostsDeletedOnX(client: Pick<pg.PoolClient, 'query'>, postIds: readonly string[], at: Date): Promise<{ posts: number; items: number }> {
  if (postIds.length === 0) return { posts: 0, items: 0 };
  const { rows } = await client.query<{ posts: number; items: number }>(ERASE_DELETED, [[...postIds].sort(), at]);
  return rows[0] ?? { posts: 0, items: 0 };
}
