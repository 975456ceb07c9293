import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@hashwatch/logger';
import { createMetricsRegistry, httpMetrics, METRICS_CONTENT_TYPE, queueJobsMetric, UNMATCHED_ROUTE, type QueueJobCounts, type Registry } from '@hashwatch/metrics';
import { queueNames, type Queues } from '@hashwatch/queues';
import { METRICS_UNAUTHORIZED, metricsScrapeAllowed } from '@hashwatch/lifecycle';

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly requestDuration: ReturnType<typeof httpMetrics>['requestDuration'];
}

/**
 * The gateway's series on a registry of its own: process metrics, request latency by route and, given the
 * queues, every queue's backlog read from Redis at scrape time. The gateway always runs, so the backlog stays
 * visible (and usable by an autoscaler) while a worker pool is scaled to zero.
 */
export function createGatewayMetrics(options: { logger: Logger; queues?: Queues }): GatewayMetrics {
  const registry = createMetricsRegistry('gateway');
  const { requestDuration } = httpMetrics(registry);
  if (options.queues) {
    const { byName } = options.queues;
    const counted: QueueJobCounts[] = queueNames.map((name) => ({ name, getJobCounts: (...states) => byName[name].getJobCounts(...(states as never[])) }));
    queueJobsMetric(registry, counted, (queue, error) => options.logger.warn('queue counts unavailable', { queue, error }));
  }
  return { registry, requestDuration };
}

/**
 * Remembers the pattern of the last route the request matched, with the mount path it had then (`/v1` +
 * `/tracks`): Express sets `req.route` on a match but restores `req.baseUrl` when an error leaves the router,
 * so reading both once the response is sent would lose the mount of a route that threw.
 */
function captureRoute(req: Request): () => string | undefined {
  let route: unknown;
  let matched: string | undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: unknown) {
      route = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      // Routers are mounted at fixed lower-case paths, matched case-insensitively: `req.baseUrl` is the mount as the
      // client typed it (`/V1`), so it is folded, or each casing would be a new label value.
      if (typeof path === 'string') matched = req.baseUrl.toLowerCase() + path;
    },
  });
  return () => matched;
}

/**
 * Observes every request's latency once it is answered (or its connection closed), labelled with the pattern
 * of the route that answered it (`/v1/notifications/deliveries/:id/retry`), never the URL, so clients cannot
 * grow the label set. Requests no route answered (404s, the dashboard's files and its fallback, a refusal
 * before routing) share the label `unmatched`.
 */
export function measureRequests(metrics: GatewayMetrics) {
  return function measure(req: Request, res: Response, next: NextFunction): void {
    const stop = metrics.requestDuration.startTimer();
    const matched = captureRoute(req);
    let observed = false;
    const done = () => {
      if (observed) return;
      observed = true;
      stop({ route: matched() ?? UNMATCHED_ROUTE, method: req.method, status: String(res.statusCode) });
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

/**
 * GET /metrics: the Prometheus text exposition, never cached. With METRICS_TOKEN (`token`) set, a scrape needs
 * `Authorization: Bearer <token>` (compared in constant time) and anything else answers 401; unset, it is open.
 */
export function serveMetrics(metrics: GatewayMetrics, logger: Logger, token?: string) {
  return async function metricsPage(req: Request, res: Response): Promise<void> {
    if (!metricsScrapeAllowed(req.headers, token)) {
      res.set('WWW-Authenticate', 'Bearer realm="metrics"').set('Cache-Control', 'no-store').status(401).json(METRICS_UNAUTHORIZED);
      return;
    }
    try {
      const text = await metrics.registry.metrics();
      res.set('Cache-Control', 'no-store').type(METRICS_CONTENT_TYPE).send(text);
    } catch (error) {
      logger.error('metrics failed', { error });
      res.status(500).json({ error: { code: 'internal_error', message: 'metrics unavailable' } });
    }
  };
}
