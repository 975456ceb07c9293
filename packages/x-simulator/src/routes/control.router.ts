import express, { Router, type ErrorRequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { SimulatorState } from '../simulator-state';
import { StoreError } from '../store/sim-store';
import { generatorStartBody, rateLimitBody, replayQuery, requestLogQuery } from './control.schema';

const produceBody = z.object({ count: z.number().int().min(1).max(100_000) }).strict();

function fail(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

const controlErrors: ErrorRequestHandler = (error, _req, res, next) => {
  if (res.headersSent) return next(error);
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    return fail(res, 400, 'invalid_request', issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request');
  }
  if (error instanceof StoreError) return fail(res, error.reason === 'not_found' ? 404 : 409, error.reason, error.message);
  const status = (error as { status?: number }).status;
  if (status === 400 || status === 413) return fail(res, status, status === 400 ? 'invalid_request' : 'payload_too_large', 'the body must be JSON');
  return next(error);
};

/**
 * The simulator's own JSON API under /_sim: shape the world (users, posts, engagement), inject faults, tune
 * rate limits, read the request log and counters, drive the generator, reset. No auth: a local tool.
 */
export function controlRouter(state: SimulatorState): Router {
  const router = Router();
  router.use('/_sim', express.json({ limit: '5mb' }));
  router.get('/_sim/health', (_req, res) => {
    res.json({ ok: true, naming: state.settings.naming, posts: state.store.postCount() });
  });
  worldRoutes(router, state);
  faultAndLimitRoutes(router, state);
  logAndGeneratorRoutes(router, state);
  streamRoutes(router, state);
  router.post('/_sim/reset', (_req, res) => {
    state.reset();
    res.status(204).end();
  });
  router.use('/_sim', controlErrors);
  return router;
}

/** Users, posts and their engagement. */
function worldRoutes(router: Router, state: SimulatorState): void {
  router.post('/_sim/users', (req, res) => {
    res.status(201).json(state.describeUser(state.createUser(req.body)));
  });
  router.get('/_sim/users/:username', (req, res) => {
    const user = state.store.userByUsername(String(req.params.username));
    if (!user) return fail(res, 404, 'not_found', `no user ${req.params.username}`);
    res.json(state.describeUser(user));
  });

  router.post('/_sim/posts', (req, res) => {
    res.status(201).json(state.describePost(state.injectPost(req.body)));
  });
  router.get('/_sim/posts/:id', (req, res) => {
    const post = state.store.post(String(req.params.id));
    if (!post) return fail(res, 404, 'not_found', `no post ${req.params.id}`);
    const handles = (ids: string[]) => ids.map((id) => state.store.userById(id)?.username);
    res.json({ ...state.describePost(post), likers: handles(post.likerIds), retweeters: handles(post.retweeterIds) });
  });
  router.delete('/_sim/posts/:id', (req, res) => {
    state.deletePost(String(req.params.id));
    res.status(204).end();
  });
  router.post('/_sim/posts/:id/edits', (req, res) => {
    res.status(201).json(state.describePost(state.editPost(String(req.params.id), req.body)));
  });
  router.put('/_sim/posts/:id/withheld', (req, res) => {
    res.json(state.describePost(state.setPostWithheld(String(req.params.id), req.body)));
  });
  router.delete('/_sim/posts/:id/withheld', (req, res) => {
    res.json(state.describePost(state.setPostWithheld(String(req.params.id), null)));
  });
  router.post('/_sim/replay', (req, res) => {
    const { default_author: defaultAuthor } = replayQuery.parse(req.query);
    res.status(201).json(state.replayRecording(req.body, { defaultAuthor }));
  });
  router.put('/_sim/users/:username/withheld', (req, res) => {
    res.json(state.describeUser(state.setUserWithheld(String(req.params.username), req.body)));
  });
  router.delete('/_sim/users/:username/withheld', (req, res) => {
    res.json(state.describeUser(state.setUserWithheld(String(req.params.username), null)));
  });
  router.post('/_sim/posts/:id/likes', (req, res) => {
    res.json(state.describePost(state.addLikes(String(req.params.id), req.body)));
  });
  router.post('/_sim/posts/:id/retweets', (req, res) => {
    res.json(state.describePost(state.addRetweets(String(req.params.id), req.body)));
  });
  router.post('/_sim/posts/:id/replies', (req, res) => {
    res.status(201).json(state.describePost(state.addReply(String(req.params.id), req.body)));
  });
}

/** Pending faults and the rate-limit windows. */
function faultAndLimitRoutes(router: Router, state: SimulatorState): void {
  router.get('/_sim/faults', (_req, res) => {
    res.json({ data: state.faults.pending() });
  });
  router.post('/_sim/faults', (req, res) => {
    res.status(201).json({ data: state.injectFault(req.body) });
  });
  router.delete('/_sim/faults', (_req, res) => {
    state.faults.clear();
    res.status(204).end();
  });

  router.get('/_sim/rate-limits', (_req, res) => {
    res.json(state.limiter.limitsSnapshot());
  });
  router.put('/_sim/rate-limits', (req, res) => {
    const body = rateLimitBody.parse(req.body);
    if (body.window_seconds !== undefined) state.limiter.setWindowSeconds(body.window_seconds);
    if (body.endpoint) state.limiter.setLimit(body.endpoint, { app: body.app, user: body.user });
    res.json(state.limiter.limitsSnapshot());
  });
  router.post('/_sim/rate-limits/reset', (_req, res) => {
    state.limiter.resetWindows();
    res.status(204).end();
  });
}

/** The request log, its counters and the post generator. */
function logAndGeneratorRoutes(router: Router, state: SimulatorState): void {
  router.get('/_sim/requests', (req, res) => {
    const query = requestLogQuery.parse(req.query);
    res.json({ data: state.requestLog.entries(query) });
  });
  router.delete('/_sim/requests', (_req, res) => {
    state.requestLog.clear();
    res.status(204).end();
  });
  router.get('/_sim/counters', (_req, res) => {
    res.json(state.requestLog.counters());
  });

  router.get('/_sim/generator', (_req, res) => {
    res.json(state.generator.status());
  });
  router.post('/_sim/generator/start', (req, res) => {
    res.json(state.generator.start(generatorStartBody.parse(req.body ?? {})));
  });
  router.post('/_sim/generator/stop', (_req, res) => {
    res.json(state.generator.stop());
  });
  router.post('/_sim/generator/produce', (req, res) => {
    const { count } = produceBody.parse(req.body);
    res.status(201).json({ data: state.generator.produce(count).map((post) => state.describePost(post)) });
  });
}

/** The filtered stream's connections: status, disconnects and stalls. */
function streamRoutes(router: Router, state: SimulatorState): void {
  router.get('/_sim/stream', (_req, res) => {
    res.json(state.streamStatus());
  });
  router.post('/_sim/stream/disconnect', (req, res) => {
    res.json({ disconnected: state.streamDisconnect(req.body ?? {}) });
  });
  router.post('/_sim/stream/stall', (_req, res) => {
    res.json({ stalled: state.streamStall() });
  });
  router.post('/_sim/stream/resume', (_req, res) => {
    res.json({ resumed: state.streamResume() });
  });
}
