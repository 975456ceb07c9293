import { Router, type Request } from 'express';
import { endpoint, type ServedAnswer } from '../http/endpoint-pipeline';
import { parseParams, patternListParam } from '../http/query-params';
import type { SimulatorState } from '../simulator-state';
import type { SimPost } from '../store/sim-store';
import { postFieldParams, selectionOf } from './field-params';

const SNOWFLAKE = /^[0-9]{1,19}$/;

const lookupParams = { ids: patternListParam('ids', SNOWFLAKE, 100, true), ...postFieldParams };

/** Found posts in `data`, missing ones as resource-not-found problems in `errors`, both in one 200. */
function lookup(state: SimulatorState, ids: string[], parameter: string, params: Parameters<typeof selectionOf>[0], single: boolean): ServedAnswer {
  const found: SimPost[] = [];
  const errors: Record<string, unknown>[] = [];
  for (const id of new Set(ids)) {
    const post = state.store.post(id);
    if (post) found.push(post);
    else errors.push(state.problems.resourceNotFound('tweet', parameter, id));
  }
  const body: Record<string, unknown> = {};
  let served = { postsServed: 0, usersServed: 0 };
  if (found.length > 0) {
    const serialized = state.serializer.posts(found, selectionOf(params));
    body.data = single ? serialized.data[0] : serialized.data;
    if (serialized.includes) body.includes = serialized.includes;
    errors.push(...serialized.errors);
    served = serialized;
  }
  if (errors.length > 0) body.errors = errors;
  return { status: 200, body, postsServed: served.postsServed, usersServed: served.usersServed };
}

function postsByIds(state: SimulatorState, req: Request): ServedAnswer {
  const parsed = parseParams(lookupParams, req.query as Record<string, unknown>);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  return lookup(state, parsed.value.ids!, 'ids', parsed.value, false);
}

function postById(state: SimulatorState, req: Request): ServedAnswer {
  const id = String(req.params.id);
  const parsed = parseParams(postFieldParams, req.query as Record<string, unknown>);
  const errors = parsed.ok ? [] : parsed.errors;
  if (!SNOWFLAKE.test(id)) errors.unshift({ parameters: { id: [id] }, message: `The \`id\` query parameter value [${id}] does not match ^[0-9]{1,19}$` });
  if (!parsed.ok || errors.length > 0) return state.problems.invalidRequest(errors);
  return lookup(state, [id], 'id', parsed.value, true);
}

/** GET /2/tweets?ids= (up to 100) and GET /2/tweets/:id. */
export function postsRouter(state: SimulatorState): Router {
  const router = Router();
  router.get('/2/tweets', endpoint('posts_lookup', state, (req) => postsByIds(state, req)));
  router.get('/2/tweets/:id', endpoint('post_by_id', state, (req) => postById(state, req)));
  return router;
}
