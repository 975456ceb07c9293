import { Router, type Request } from 'express';
import { endpoint, type ServedAnswer } from '../http/endpoint-pipeline';
import { decodeIdToken } from '../http/pagination-token';
import { integerParam, listParam, parseParams, patternListParam, snowflakeParam, stringParam, timeParam } from '../http/query-params';
import type { SimulatorState } from '../simulator-state';
import { isLatestVersion, type SimUser } from '../store/sim-store';
import { postFieldParams, selectionOf, userFieldParams } from './field-params';
import { filterPosts, postPage } from './post-page';

const USERNAME = /^[A-Za-z0-9_]{1,15}$/;
const SNOWFLAKE = /^[0-9]{1,19}$/;
// X serves only the ~3,200 most recent posts of a timeline.
const TIMELINE_DEPTH = 3200;

const usersByParams = { usernames: patternListParam('usernames', USERNAME, 100, true), ...userFieldParams };

const timelineParams = {
  max_results: integerParam('max_results', 5, 100),
  pagination_token: stringParam('pagination_token'),
  since_id: snowflakeParam('since_id'),
  until_id: snowflakeParam('until_id'),
  start_time: timeParam('start_time'),
  end_time: timeParam('end_time'),
  exclude: listParam('exclude', ['replies', 'retweets']),
  ...postFieldParams,
};

function pathError(name: string, value: string, pattern: RegExp) {
  return { parameters: { [name]: [value] }, message: `The \`${name}\` query parameter value [${value}] does not match ${pattern.source}` };
}

function users(state: SimulatorState, found: SimUser[], errors: Record<string, unknown>[], selection: ReturnType<typeof selectionOf>, single: boolean): ServedAnswer {
  const body: Record<string, unknown> = {};
  if (found.length > 0) {
    const data = found.map((user) => state.serializer.user(user, selection.user));
    body.data = single ? data[0] : data;
  }
  if (errors.length > 0) body.errors = errors;
  return { status: 200, body, usersServed: found.length };
}

function usersByUsernames(state: SimulatorState, req: Request): ServedAnswer {
  const parsed = parseParams(usersByParams, req.query as Record<string, unknown>);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  const found: SimUser[] = [];
  const errors: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const name of parsed.value.usernames!) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    const user = state.store.userByUsername(name);
    if (user) found.push(user);
    else errors.push({ ...state.problems.resourceNotFound('user', 'usernames', name), detail: `Could not find user with usernames: [${name}].` });
  }
  return users(state, found, errors, selectionOf(parsed.value), false);
}

function userByUsername(state: SimulatorState, req: Request): ServedAnswer {
  const username = String(req.params.username);
  const parsed = parseParams(userFieldParams, req.query as Record<string, unknown>);
  const errors = parsed.ok ? [] : parsed.errors;
  if (!USERNAME.test(username)) errors.unshift(pathError('username', username, USERNAME));
  if (!parsed.ok || errors.length > 0) return state.problems.invalidRequest(errors);
  const user = state.store.userByUsername(username);
  const missing = user ? [] : [state.problems.resourceNotFound('user', 'username', username)];
  return users(state, user ? [user] : [], missing, selectionOf(parsed.value), true);
}

function userPosts(state: SimulatorState, req: Request): ServedAnswer {
  const id = String(req.params.id);
  const parsed = parseParams(timelineParams, req.query as Record<string, unknown>);
  const errors = parsed.ok ? [] : parsed.errors;
  if (!SNOWFLAKE.test(id)) errors.unshift(pathError('id', id, SNOWFLAKE));
  if (!parsed.ok || errors.length > 0) return state.problems.invalidRequest(errors);
  const params = parsed.value;
  const user = state.store.userById(id);
  if (!user) return { status: 200, body: { errors: [state.problems.resourceNotFound('user', 'id', id)], meta: { result_count: 0 } } };

  let below = params.until_id;
  if (params.pagination_token !== undefined) {
    const decoded = decodeIdToken(params.pagination_token);
    if (decoded === null) {
      const token = params.pagination_token;
      return state.problems.invalidRequest([{ parameters: { pagination_token: [token] }, message: `The pagination token [${token}] is not valid` }]);
    }
    below = below === undefined || decoded < below ? decoded : below;
  }
  // since_id takes precedence over start_time, and until_id over end_time (OpenAPI parameter descriptions).
  const start = params.since_id === undefined ? (params.start_time ?? -Infinity) : -Infinity;
  const end = params.until_id === undefined ? (params.end_time ?? Infinity) : Infinity;
  const now = state.now();
  // A timeline shows an edited post once, as its newest version.
  const reachable = [...state.store.newestFirst({ authorId: id })].filter((post) => post.createdAt <= now && isLatestVersion(post)).slice(0, TIMELINE_DEPTH);
  const floor = reachable[reachable.length - 1]?.num ?? 0n;
  const exclude = new Set(params.exclude ?? []);
  const posts = filterPosts(state.store.newestFirst({ authorId: id, since: params.since_id, until: below }), start, (post) => {
    if (post.num < floor || post.createdAt > now || post.createdAt >= end || !isLatestVersion(post)) return false;
    if (exclude.has('retweets') && post.references.some((ref) => ref.type === 'retweeted')) return false;
    if (exclude.has('replies') && post.references.some((ref) => ref.type === 'replied_to')) return false;
    return true;
  });
  return postPage(state, posts, params.max_results ?? 10, selectionOf(params));
}

/** GET /2/users/by, /2/users/by/username/:username and /2/users/:id/tweets. */
export function usersRouter(state: SimulatorState): Router {
  const router = Router();
  router.get('/2/users/by', endpoint('users_by_usernames', state, (req) => usersByUsernames(state, req)));
  router.get('/2/users/by/username/:username', endpoint('user_by_username', state, (req) => userByUsername(state, req)));
  router.get('/2/users/:id/tweets', endpoint('user_posts', state, (req) => userPosts(state, req)));
  return router;
}
