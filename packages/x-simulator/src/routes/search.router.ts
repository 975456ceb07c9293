import { Router } from 'express';
import { endpoint, type ServedAnswer } from '../http/endpoint-pipeline';
import { decodeIdToken } from '../http/pagination-token';
import { enumParam, integerParam, parseParams, snowflakeParam, stringParam, timeParam } from '../http/query-params';
import { QuerySyntaxError, type QueryNode } from '../query/query-ast';
import { matchesQuery } from '../query/query-matcher';
import { parseQuery } from '../query/query-parser';
import type { SimulatorState } from '../simulator-state';
import { isLatestVersion } from '../store/sim-store';
import { filterPosts, postPage } from './post-page';
import { postFieldParams, selectionOf } from './field-params';

const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;
// X refuses an end_time closer than 10 s to the request time.
const END_TIME_MARGIN_MS = 10_000;

const searchParams = {
  query: stringParam('query', { required: true }),
  max_results: integerParam('max_results', 10, 100),
  next_token: stringParam('next_token'),
  pagination_token: stringParam('pagination_token'),
  start_time: timeParam('start_time'),
  end_time: timeParam('end_time'),
  since_id: snowflakeParam('since_id'),
  until_id: snowflakeParam('until_id'),
  sort_order: enumParam('sort_order', ['recency', 'relevancy'] as const),
  ...postFieldParams,
};

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function searchRecent(state: SimulatorState, rawQuery: Record<string, unknown>): ServedAnswer {
  const parsed = parseParams(searchParams, rawQuery);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  const params = parsed.value;
  const now = state.now();
  const invalid = (name: string, value: string, message: string) => state.problems.invalidRequest([{ parameters: { [name]: [value] }, message }]);

  let tree: QueryNode;
  try {
    tree = parseQuery(params.query!, state.settings.maxQueryLength);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return invalid('query', params.query!, error.message);
    throw error;
  }
  const windowStart = now - SEVEN_DAYS_MS;
  if (params.start_time !== undefined && params.start_time < windowStart) {
    return invalid('start_time', iso(params.start_time), `Invalid 'start_time':'${iso(params.start_time)}'. 'start_time' must be on or after ${iso(Math.ceil(windowStart / 1000) * 1000)}`);
  }
  if (params.end_time !== undefined && params.end_time > now - END_TIME_MARGIN_MS) {
    return invalid('end_time', iso(params.end_time), `Invalid 'end_time':'${iso(params.end_time)}'. 'end_time' must be a minimum of 10 seconds prior to the request time.`);
  }
  if (params.start_time !== undefined && params.end_time !== undefined && params.start_time >= params.end_time) {
    return invalid('start_time', iso(params.start_time), `Invalid 'start_time':'${iso(params.start_time)}'. 'start_time' must be before 'end_time'`);
  }
  const token = params.next_token ?? params.pagination_token;
  let below = params.until_id;
  if (token !== undefined) {
    const decoded = decodeIdToken(token);
    if (decoded === null) return invalid(params.next_token ? 'next_token' : 'pagination_token', token, `The pagination token [${token}] is not valid`);
    below = below === undefined || decoded < below ? decoded : below;
  }

  const start = Math.max(windowStart, params.start_time ?? windowStart);
  const end = params.end_time ?? Infinity;
  const posts = filterPosts(state.store.newestFirst({ since: params.since_id, until: below }), start, (post) => {
    if (post.visibleAt > now || post.createdAt > now || post.createdAt >= end) return false;
    // An edited post is found as its newest version only.
    if (!isLatestVersion(post)) return false;
    if (!state.settings.searchIncludesRetweets && post.references.some((ref) => ref.type === 'retweeted')) return false;
    const author = state.store.userById(post.authorId);
    const repliedToUser = post.inReplyToUserId ? state.store.userById(post.inReplyToUserId) : undefined;
    return matchesQuery(tree, post, { author, repliedToUser });
  });
  return postPage(state, posts, params.max_results ?? 10, selectionOf(params));
}

/** GET /2/tweets/search/recent: the last 7 days, newest first, paged with next_token. */
export function searchRouter(state: SimulatorState): Router {
  const router = Router();
  router.get('/2/tweets/search/recent', endpoint('search_recent', state, (req) => searchRecent(state, req.query as Record<string, unknown>)));
  return router;
}
