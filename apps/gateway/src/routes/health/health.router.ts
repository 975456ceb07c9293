import { Router } from 'express';
import type { GatewayDeps } from '../../deps';

/** `/healthz`: the process answers. `/readyz`: PostgreSQL and Redis answer too. No key needed. */
export function healthRouter(deps: GatewayDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, 'ok' | 'failing'> = {};
    await Promise.all([
      deps.db.pool.query('SELECT 1').then(
        () => (checks.postgres = 'ok'),
        () => (checks.postgres = 'failing'),
      ),
      deps.redis.ping().then(
        () => (checks.redis = 'ok'),
        () => (checks.redis = 'failing'),
      ),
    ]);
    const ready = Object.values(checks).every((value) => value === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  return router;
}
