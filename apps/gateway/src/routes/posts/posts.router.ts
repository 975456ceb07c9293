import type { NextFunction, Request, Response } from 'express';
import { hashApiKey } from '@hashwatch/secrets';
import { sendSuccess, type ApiBuilder } from '../../http/api-builder';
import type { GatewayDeps } from '../../deps';
import type { Authenticator } from '../../middleware/authenticate';
import { postCursor, type FeedPosition } from './post-cursor';
import { listPostsQuerySchema, postListSchema } from './posts.schema';
import { listPosts, readPageWithKey } from './posts.service';

const LIST_POSTS = {
  method: 'get',
  path: '/posts',
  success: { status: 200, description: 'One page of the feed.', schema: postListSchema },
} as const;

export function registerPostRoutes(api: ApiBuilder, deps: GatewayDeps): void {
  const { pool } = deps.db;
  const cursors = postCursor(deps.secretsKey);
  api.route({
    ...LIST_POSTS,
    tag: 'Posts',
    summary: 'Read the feed of detected posts and engagement events, newest first, with filters and cursor pagination.',
    description:
      'Every item is stored once per account, however many of its sources matched (`sources` lists them; the `hashtag` and ' +
      '`account` filters match any of them). Pages follow `next_cursor`; poll for new items with `since`.',
    query: listPostsQuerySchema,
    handler: ({ auth, query }) => listPosts(pool, cursors, auth.userId, query),
  });
}

/** A request that may carry a body (what body-parser would try to read). */
function mayHaveBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * GET /v1/posts in one PostgreSQL round trip: the key lookup of authentication and the page are one statement
 * (readPageWithKey), then the same per-account cap and subscription check as every route. Mounted before the /v1
 * chain, it takes only requests whose answer can be a page: a well-formed bearer key, a valid query, a
 * well-formed cursor and no body. Any other request goes on to the /v1 chain, which answers it exactly as it
 * answers every route (401 before 400, and so on); nothing has been counted or read for it by then.
 *
 * The page is read before the cap is checked, so a request over the cap costs that read (and still answers 429).
 */
export function postsInOneRoundTrip(deps: GatewayDeps, authenticator: Authenticator) {
  const cursors = postCursor(deps.secretsKey);
  const validate = deps.validateResponses === true;
  return async function readPostsInOneRoundTrip(req: Request, res: Response, next: NextFunction): Promise<void> {
    const apiKey = authenticator.bearer(req);
    if (apiKey === undefined || mayHaveBody(req)) return next();
    const parsed = listPostsQuerySchema.safeParse(req.query);
    if (!parsed.success) return next();
    const query = parsed.data;
    let after: FeedPosition | null = null;
    if (query.cursor !== undefined) {
      const claimed = cursors.peek(query.cursor);
      if (!claimed) return next();
      after = claimed;
    }
    const page = await readPageWithKey(deps.db.pool, cursors, hashApiKey(apiKey), query, after);
    if (!page) return authenticator.refuse(req, true);
    await authenticator.admit(res, page.key);
    sendSuccess(res, LIST_POSTS, page.body(), validate);
  };
}
