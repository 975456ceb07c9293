import type { ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import { postCursor } from './post-cursor';
import { listPostsQuerySchema, postListSchema } from './posts.schema';
import { listPosts } from './posts.service';

export function registerPostRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  const cursors = postCursor(deps.secretsKey);
  api.route({
    method: 'get',
    path: '/posts',
    tag: 'Posts',
    summary: 'Read the feed of detected posts and engagement events, newest first, with filters and cursor pagination.',
    description:
      'Every item is stored once per account, however many of its sources matched (`sources` lists them; the `hashtag` and ' +
      '`account` filters match any of them). Pages follow `next_cursor`; poll for new items with `since`.',
    query: listPostsQuerySchema,
    success: { status: 200, description: 'One page of the feed.', schema: postListSchema },
    handler: ({ auth, query }) => listPosts(pool, cursors, auth.userId, query),
  });
}
