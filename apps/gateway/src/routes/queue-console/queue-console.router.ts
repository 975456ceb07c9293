import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { AppError } from '@hashwatch/errors';
import type { Logger } from '@hashwatch/logger';
import { queueNames, type Queues, type RedisClient } from '@hashwatch/queues';
import { addressKey } from '../../middleware/client-address';
import { setRateLimitHeaders } from '../../middleware/rate-limit-headers';
import { describeWait, Limiter } from '../../middleware/rate-limiters';
import { PAGE_CSP } from '../../middleware/security-headers';
import { sameOriginOnly } from '../../middleware/same-origin';

/** Where the console lives (CONTRACT 7). */
export const QUEUE_CONSOLE_PATH = '/admin/queues';

/** Wrong credentials one address may send per window before it is refused for the rest of it. */
export const CONSOLE_FAILED_LOGINS = { points: 10, durationSeconds: 15 * 60 };

export interface QueueConsoleOptions {
  /** ADMIN_USER and ADMIN_PASSWORD. */
  credentials: { user: string; password: string };
  /** Every queue of QUEUE_PREFIX, as the workers see them. */
  queues: Queues;
  /**
   * Queues of the former key layout that still hold jobs (formerLayoutQueues), shown as `former-<queue>`: a list, or
   * one still being read (it needs Redis), whose queues join the board when it resolves.
   */
  formerQueues?: readonly Queue[] | Promise<readonly Queue[]>;
  redis: RedisClient;
  keyPrefix: string;
  publicUrl: string;
  logger: Logger;
}

// The board's page: its scripts and stylesheet come from this origin; it sets inline style attributes, and its
// webfont link (an outside origin) is refused, so the system font shows.
const CONSOLE_CSP = PAGE_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** `user:password` of a Basic Authorization header, or undefined when there is none or it is malformed. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic authentication against ADMIN_USER/ADMIN_PASSWORD. Both values are compared as SHA-256 digests in
 * constant time, always both, so the answer's timing tells nothing about which one was wrong or how much of it
 * matched. Every attempt counts against the client's address (shared by replicas) before the comparison and is
 * given back when right: past the limit every attempt, right or wrong, answers 429 until the window ends, so the
 * password cannot be guessed at speed, in sequence or in parallel.
 */
function basicAuth(options: QueueConsoleOptions) {
  const user = digest(options.credentials.user);
  const password = digest(options.credentials.password);
  const { points, durationSeconds } = CONSOLE_FAILED_LOGINS;
  const failures = new Limiter(options.redis, `${options.keyPrefix}:rl:ip:queue-console`, points, durationSeconds);
  const challenge = (res: Response): never => {
    res.setHeader('WWW-Authenticate', 'Basic realm="Hashwatch queues", charset="UTF-8"');
    throw new AppError('unauthorized', 'the queue console needs the operator credentials (ADMIN_USER and ADMIN_PASSWORD)');
  };
  return async function requireOperator(req: Request, res: Response, next: NextFunction): Promise<void> {
    const address = addressKey(req);
    // Counted before the credentials are compared, atomically in Redis, and given back when they are right: a burst
    // of parallel guesses is cut off at the limit instead of every guess being compared (and answered) first.
    const attempt = await failures.consume(address);
    if (!attempt.allowed) {
      setRateLimitHeaders(res, attempt);
      throw new AppError('rate_limited', `too many wrong credentials from this address; retry in ${describeWait(attempt.retryAfterSeconds)}`, {
        retryAfterSeconds: attempt.retryAfterSeconds,
      });
    }
    const given = basicCredentials(req.headers.authorization);
    const userMatches = timingSafeEqual(digest(given?.user ?? ''), user);
    const passwordMatches = timingSafeEqual(digest(given?.password ?? ''), password);
    if (!given) {
      // No credentials at all (a browser's first request, before its prompt) is not a guess.
      await failures.refund(address);
      challenge(res);
    }
    if (!userMatches || !passwordMatches) {
      options.logger.warn('queue console: wrong credentials', { address });
      challenge(res);
    }
    await failures.refund(address);
    next();
  };
}

/** Every change made from the console is logged with who made it: an operator acting on jobs leaves a trace. */
function auditChanges(logger: Logger) {
  return function logChange(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.on('finish', () => {
        logger.info('queue console change', { method: req.method, path: `${QUEUE_CONSOLE_PATH}${req.path}`, status: res.statusCode });
      });
    }
    next();
  };
}

/**
 * Bull Board over every queue of QUEUE_PREFIX, behind HTTP Basic authentication. Browsers send Basic credentials
 * on any site's request, so a change (retry, remove, pause…) from another origin is refused as cross-site.
 */
export function queueConsoleRouter(options: QueueConsoleOptions): Router {
  const server = new ExpressAdapter();
  server.setBasePath(QUEUE_CONSOLE_PATH);
  const board = createBullBoard({
    queues: queueNames.map((name) => new BullMQAdapter(options.queues.byName[name], { description: `${options.queues.prefix}:${name}` })),
    serverAdapter: server,
    options: { uiConfig: { boardTitle: 'Hashwatch queues' } },
  });
  const former = (queue: Queue) =>
    new BullMQAdapter(queue, { prefix: 'former-', description: `${queue.qualifiedName}: jobs left under the former key layout; a retried job moves to ${queue.name} within a minute` });
  Promise.resolve(options.formerQueues ?? [])
    .then((queues) => queues.forEach((queue) => board.addQueue(former(queue))))
    .catch((error: unknown) => options.logger.warn('queue console: the former key layout could not be read', { error }));
  const crossSite = sameOriginOnly(options.publicUrl);
  const router = Router();
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    next();
  });
  router.use(basicAuth(options));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') next();
    else crossSite(req, res, next);
  });
  router.use(auditChanges(options.logger));
  router.use(server.getRouter() as Router);
  return router;
}
