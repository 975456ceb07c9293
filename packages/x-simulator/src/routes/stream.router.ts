import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { endpoint, type Caller, type ServedAnswer } from '../http/endpoint-pipeline';
import { decodeIdToken, encodeIdToken } from '../http/pagination-token';
import { enumParam, integerParam, parseParams, patternListParam, stringParam } from '../http/query-params';
import type { SimulatorState } from '../simulator-state';
import { postFieldParams, selectionOf } from './field-params';

const ruleIdPattern = /^[0-9]{1,19}$/;

const connectParams = {
  ...postFieldParams,
  // Enterprise-only on X; accepted (the spec lists them) and without effect here.
  backfill_minutes: integerParam('backfill_minutes', 0, 5),
  start_time: stringParam('start_time'),
  end_time: stringParam('end_time'),
};

const rulesLookupParams = {
  ids: patternListParam('ids', ruleIdPattern, 1000),
  max_results: integerParam('max_results', 1, 1000),
  pagination_token: stringParam('pagination_token'),
};

const rulesWriteParams = {
  dry_run: enumParam('dry_run', ['true', 'false'] as const),
  delete_all: enumParam('delete_all', ['true', 'false'] as const),
};

// X's UpdateRulesRequest: exactly one of `add` and `delete` (or neither with ?delete_all=true).
const updateRulesBody = z
  .object({
    add: z.array(z.object({ value: z.string().min(1), tag: z.string().optional() }).strict()).min(1).optional(),
    delete: z
      .object({ ids: z.array(z.string().regex(ruleIdPattern)).optional(), values: z.array(z.string().min(1)).optional() })
      .strict()
      .refine((target) => (target.ids?.length ?? 0) + (target.values?.length ?? 0) > 0, { message: 'delete needs ids or values' })
      .optional(),
  })
  .strict();

function rulesLookup(state: SimulatorState, req: Request, caller: Caller): ServedAnswer {
  const parsed = parseParams(rulesLookupParams, req.query as Record<string, unknown>);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  const { ids, max_results: max = 1000, pagination_token: token } = parsed.value;
  let after = -1n;
  if (token !== undefined) {
    const decoded = decodeIdToken(token);
    if (decoded === null) return state.problems.invalidRequest([{ parameters: { pagination_token: [token] }, message: `The pagination token [${token}] is not valid` }]);
    after = decoded;
  }
  const wanted = ids && new Set(ids);
  const rules = state.stream.rules(caller.token).filter((rule) => rule.num > after && (!wanted || wanted.has(rule.id)));
  const page = rules.slice(0, max);
  const meta: Record<string, unknown> = { sent: new Date(state.now()).toISOString(), result_count: page.length };
  if (rules.length > page.length) meta.next_token = encodeIdToken(page[page.length - 1]!.num);
  const body: Record<string, unknown> = {};
  if (page.length > 0) body.data = page.map((rule) => state.stream.describe(rule));
  body.meta = meta;
  return { status: 200, body };
}

function rulesUpdate(state: SimulatorState, req: Request, caller: Caller): ServedAnswer {
  const parsed = parseParams(rulesWriteParams, req.query as Record<string, unknown>);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  const dryRun = parsed.value.dry_run === 'true';
  const deleteAll = parsed.value.delete_all === 'true';
  const invalidBody = (message: string) => state.problems.invalidRequest([{ parameters: {}, message }]);
  let json: unknown = {};
  const raw = typeof req.body === 'string' ? req.body.trim() : '';
  if (raw !== '') {
    try {
      json = JSON.parse(raw);
    } catch {
      return invalidBody('The request body is not valid JSON');
    }
  }
  const body = updateRulesBody.safeParse(json);
  if (!body.success) {
    const issue = body.error.issues[0];
    return invalidBody(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
  }
  const given = [body.data.add, body.data.delete, deleteAll || undefined].filter((part) => part !== undefined).length;
  if (given !== 1) return invalidBody('Exactly one of add, delete, or delete_all=true must be specified');
  if (body.data.add) return { status: 200, body: state.stream.addRules(caller.token, body.data.add, dryRun) };
  return { status: 200, body: state.stream.deleteRules(caller.token, body.data.delete ?? 'all', dryRun) };
}

function connect(state: SimulatorState, req: Request, caller: Caller): ServedAnswer {
  const parsed = parseParams(connectParams, req.query as Record<string, unknown>);
  if (!parsed.ok) return state.problems.invalidRequest(parsed.errors);
  if (state.stream.ruleCount(caller.token) === 0) return state.problems.streamingConnection('RuleConfigurationIssue');
  if (state.stream.hasConnection(caller.token)) return state.problems.streamingConnection('TooManyConnections');
  const selection = selectionOf(parsed.value);
  return { status: 200, body: null, stream: (_req, res) => state.stream.open(caller.token, res, selection) };
}

/** The filtered stream: GET/POST /2/tweets/search/stream/rules and GET /2/tweets/search/stream, app-only. */
export function streamRouter(state: SimulatorState): Router {
  const router = Router();
  router.get('/2/tweets/search/stream/rules', endpoint('stream_rules_read', state, (req, caller) => rulesLookup(state, req, caller), { appOnly: true }));
  router.post(
    '/2/tweets/search/stream/rules',
    express.text({ type: () => true, limit: '5mb' }),
    endpoint('stream_rules_write', state, (req, caller) => rulesUpdate(state, req, caller), { appOnly: true }),
  );
  // The stream and its refusals go out uncompressed: a stream client reads raw bytes off the socket (axios with
  // `decompress: false` still sends Accept-Encoding: gzip), and identity is always an acceptable answer.
  router.get('/2/tweets/search/stream', endpoint('stream_connect', state, (req, caller) => connect(state, req, caller), { appOnly: true, identity: true }));
  return router;
}
