import { Router, type Request } from 'express';
import type { XEndpoint } from '../endpoints';
import { endpoint, type ServedAnswer } from '../http/endpoint-pipeline';
import { decodeOffsetToken, encodeOffsetToken } from '../http/pagination-token';
import { integerParam, parseParams, stringParam } from '../http/query-params';
import type { SimulatorState } from '../simulator-state';
import type { SimPost } from '../store/sim-store';
import { selectionOf, userFieldParams } from './field-params';

const SNOWFLAKE = /^[0-9]{1,19}$/;

const engagementParams = {
  max_results: integerParam('max_results', 1, 100),
  pagination_token: stringParam('pagination_token'),
  ...userFieldParams,
};

/** Users who engaged with a post, newest first, paged by offset; `accounts` picks which list. */
function engagedUsers(state: SimulatorState, req: Request, accounts: (post: SimPost) => string[]): ServedAnswer {
  const id = String(req.params.id);
  const parsed = parseParams(engagementParams, req.query as Record<string, unknown>);
  const errors = parsed.ok ? [] : parsed.errors;
  if (!SNOWFLAKE.test(id)) errors.unshift({ parameters: { id: [id] }, message: `The \`id\` query parameter value [${id}] does not match ^[0-9]{1,19}$` });
  if (!parsed.ok || errors.length > 0) return state.problems.invalidRequest(errors);
  const params = parsed.value;
  const post = state.store.post(id);
  if (!post) return { status: 200, body: { errors: [state.problems.resourceNotFound('tweet', 'id', id)], meta: { result_count: 0 } } };

  let offset = 0;
  if (params.pagination_token !== undefined) {
    const decoded = decodeOffsetToken(params.pagination_token);
    if (decoded === null) {
      const token = params.pagination_token;
      return state.problems.invalidRequest([{ parameters: { pagination_token: [token] }, message: `The pagination token [${token}] is not valid` }]);
    }
    offset = decoded;
  }
  const all = accounts(post).slice().reverse();
  const max = params.max_results ?? 100;
  const page = all
    .slice(offset, offset + max)
    .map((userId) => state.store.userById(userId))
    .filter((user) => user !== undefined);
  if (page.length === 0) return { status: 200, body: { meta: { result_count: 0 } } };
  const selection = selectionOf(params);
  const meta: Record<string, unknown> = { result_count: page.length };
  if (offset + max < all.length) meta.next_token = encodeOffsetToken(offset + max);
  return { status: 200, body: { data: page.map((user) => state.serializer.user(user, selection.user)), meta }, usersServed: page.length };
}

/** GET /2/tweets/:id/liking_users (user context only, 100 accounts per post for all time) and /2/tweets/:id/retweeted_by. */
export function engagementRouter(state: SimulatorState): Router {
  const router = Router();
  const cap = state.settings.likingUsersCap;
  const route = (path: string, name: XEndpoint, accounts: (post: SimPost) => string[], userContextOnly: boolean) =>
    router.get(path, endpoint(name, state, (req) => engagedUsers(state, req, accounts), { userContextOnly }));
  // The newest `cap` likers: X documents the 100-per-post limit, not which 100; newest keeps new likers visible.
  route('/2/tweets/:id/liking_users', 'liking_users', (post) => post.likerIds.slice(Math.max(0, post.likerIds.length - cap)), true);
  route('/2/tweets/:id/retweeted_by', 'retweeted_by', (post) => post.retweeterIds, false);
  return router;
}
