import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type Express } from 'express';
import type { GatewayDeps } from './deps';
import { ApiBuilder, jsonBody } from './http/api-builder';
import { Authenticator } from './middleware/authenticate';
import { errorHandler, notFound } from './middleware/error-handler';
import { createGatewayMetrics, measureRequests, serveMetrics } from './metrics/gateway-metrics';
import { requestLog } from './middleware/request-log';
import { securityHeaders } from './middleware/security-headers';
import { dashboardRouter, defaultDashboardDir } from './routes/dashboard/dashboard.router';
import { docsRouter } from './routes/docs/docs.router';
import { openApiDocument } from './routes/docs/openapi-document';
import { healthRouter } from './routes/health/health.router';
import { postsInOneRoundTrip } from './routes/posts/posts.router';
import { QUEUE_CONSOLE_PATH, queueConsoleRouter } from './routes/queue-console/queue-console.router';
import { registerRoutes } from './routes';

const OPENAPI = Symbol('openapi');

/** The OpenAPI document an app built by {@link createApp} serves at `/v1/openapi.json`. */
export function openApiOf(app: Express): Record<string, unknown> {
  return (app as Express & { [OPENAPI]: Record<string, unknown> })[OPENAPI];
}

/** Builds the gateway without listening, so tests drive it with supertest. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Per-address limits (checkout, sign-in, failed keys) need the client's address, not a load balancer's.
  app.set('trust proxy', deps.trustProxy ?? 0);
  const metrics = deps.metrics ?? createGatewayMetrics({ logger: deps.logger });
  app.use(measureRequests(metrics));
  app.use(requestLog(deps.logger));
  app.use(securityHeaders());

  const authenticator = new Authenticator(deps);
  const registry = new OpenAPIRegistry();
  const api = new ApiBuilder(registry, deps);
  registerRoutes(api, deps, authenticator.sessions);
  const document = openApiDocument(registry);
  Object.defineProperty(app, OPENAPI, { value: document });

  // The feed, the endpoint clients poll, authenticates and reads its page in one statement; what it does not
  // take goes on to the /v1 chain. First of the routes, so its requests pass no other route's matcher.
  app.get('/v1/posts', postsInOneRoundTrip(deps, authenticator));
  // Prometheus scrapes: outside /v1, so no key and no rate limit; an ingress keeps it off the internet.
  app.get('/metrics', serveMetrics(metrics, deps.logger, deps.metricsToken));
  app.use(healthRouter(deps));
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', docsRouter());
  // Checkout, sign-in, the session itself and password reset: no key, limits of their own.
  app.use('/v1', api.publicRouter);
  // Authentication (and the rate-limit headers) before the body is parsed, so even a 413 carries them.
  app.use('/v1', authenticator.middleware(api.openWhileInactive), jsonBody(), api.router);
  if (deps.queueConsole) {
    const publicUrl = deps.selfService?.publicUrl ?? 'http://localhost:3000';
    app.use(QUEUE_CONSOLE_PATH, queueConsoleRouter({ ...deps.queueConsole, redis: deps.redis, keyPrefix: deps.keyPrefix, publicUrl, logger: deps.logger }));
  }
  // Last: a /v1 request reaches it only when no route took it, and it passes those on without a file lookup.
  app.use(dashboardRouter(deps.dashboardDir ?? defaultDashboardDir()));
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
