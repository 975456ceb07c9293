import type pg from 'pg';
import type { Candidate } from '../matching/match-posts';

// x_post_sources (prisma/migrations/20261129010000_post_sources): the sources that matched a post no feed item holds,
// which is how an erasure of a source finds the posts only it needed. A row already there is left as it is.
const LINK_UNSTORED_POSTS = `
INSERT INTO x_post_sources (source_key, x_post_id)
SELECT l.source_key, l.x_post_id FROM unnest($1::text[], $2::text[]) AS l(source_key, x_post_id)
 ORDER BY 1, 2
ON CONFLICT DO NOTHING`;

/** (source key, post id) pairs of the candidates, each once, sorted. */
export function sourceLinks(candidates: readonly Candidate[]): { sourceKeys: string[]; postIds: string[] } {
  const pairs = new Set<string>();
  for (const candidate of candidates) for (const match of candidate.matches) pairs.add(`${match.sourceKey}\u0000${candidate.post.rootId}`);
  const sorted = [...pairs].sort().map((pair) => pair.split('\u0000') as [string, string]);
  return { sourceKeys: sorted.map(([key]) => key), postIds: sorted.map(([, id]) => id) };
}

/**
 * Records the sources of the batch's posts that no feed item holds after it (every candidate of the post kept back,
 * over its account's quota, or none left): one statement, and none at all when every post was stored, which is
 * the common case. `held` is every post id of the batch that has an item (new or stored before).
 */
export async function linkUnstoredPosts(client: Pick<pg.PoolClient, 'query'>, candidates: readonly Candidate[], held: ReadonlySet<string>): Promise<number> {
  const { sourceKeys, postIds } = sourceLinks(candidates.filter((candidate) => !held.has(candidate.post.rootId)));
  if (postIds.length === 0) return 0;
  const { rowCount } = await client.query(LINK_UNSTORED_POSTS, [sourceKeys, postIds]);
  return rowCount ?? 0;
}
