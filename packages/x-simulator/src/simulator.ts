import express, { type ErrorRequestHandler, type Express } from 'express';
import { complianceRouter } from './routes/compliance.router';
import { controlRouter } from './routes/control.router';
import { engagementRouter } from './routes/engagement.router';
import { postsRouter } from './routes/posts.router';
import { searchRouter } from './routes/search.router';
import { streamRouter } from './routes/stream.router';
import { usersRouter } from './routes/users.router';
import { sendXAnswer } from './http/x-response';
import { SimulatorState } from './simulator-state';
import { simulatorOptionsSchema, type SimulatorOptions } from './simulator-options';

export interface Simulator {
  /** The HTTP app; listen on it (port 0 in tests) or hand it to supertest. */
  app: Express;
  /** The simulated world and its instruments, for in-process tests. */
  state: SimulatorState;
  /** Stops the generator's timer and closes open stream connections. */
  close(): void;
}

/** Builds an X API v2 simulator. Options are validated; unknown ones are refused. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const { now = Date.now, logger, ...rest } = options;
  const settings = simulatorOptionsSchema.parse(rest);
  const state = new SimulatorState(settings, now, logger);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(controlRouter(state));
  app.use(streamRouter(state));
  app.use(searchRouter(state));
  app.use(postsRouter(state));
  app.use(usersRouter(state));
  app.use(engagementRouter(state));
  app.use(complianceRouter(state));
  app.use((req, res, next) => {
    sendXAnswer(req, res, state.problems.routeNotFound(), state.now()).catch(next);
  });
  const internal: ErrorRequestHandler = (error: Error, req, res, next) => {
    if (res.headersSent) return next(error);
    logger?.error('simulator request failed', { path: req.path, error: error.message });
    sendXAnswer(req, res, state.problems.internalError(), state.now()).catch(() => res.destroy());
  };
  app.use(internal);

  if (settings.generatorAutoStart) state.generator.start();
  return {
    app,
    state,
    close: () => {
      state.generator.stop();
      state.stream.disconnect(false);
    },
  };
}
