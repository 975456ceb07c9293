import { once } from 'node:events';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import winston from 'winston';
import { createLogger } from '@hashwatch/logger';
import { createRedisConnection, defineWorker, formerLayoutQueues, moveLegacyJobs, queueNames } from '@hashwatch/queues';
import { createApp } from '../../app';
import { request, useGateway } from '../../test-support/gateway-harness';
import { CONSOLE_FAILED_LOGINS } from './queue-console.router';

const OPERATOR = { user: 'ops', password: 'correct horse battery staple' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = { Authorization: basic(OPERATOR.user, OPERATOR.password) };
const quietLogger = createLogger('test', { level: 'error', transports: [new winston.transports.Console({ silent: true })] });

describe('queue console (Bull Board at /admin/queues)', () => {
  const gw = useGateway({ queueConsole: OPERATOR });

  beforeEach(() => gw.resetLimits());

  it('asks for Basic credentials, in the error shape, and refuses wrong ones', async () => {
    const none = await request(gw.app).get('/admin/queues').expect(401);
    expect(none.headers['www-authenticate']).toBe('Basic realm="Hashwatch queues", charset="UTF-8"');
    expect(none.body).toEqual({ error: { code: 'unauthorized', message: expect.stringContaining('ADMIN_USER') } });
    for (const wrong of [basic(OPERATOR.user, 'guess'), basic('root', OPERATOR.password), 'Basic !!!', `Bearer ${OPERATOR.password}`]) {
      const res = await request(gw.app).get('/admin/queues/api/queues').set('Authorization', wrong);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    }
    expect(gw.logs.some((line) => JSON.stringify(line).includes(OPERATOR.password))).toBe(false);
  });

  it('serves the board page to the operator, with its own CSP and never cached', async () => {
    const res = await request(gw.app).get('/admin/queues').set(AUTH).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>Hashwatch queues</title>');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(res.text)?.[1];
    expect(script).toBeDefined();
    await request(gw.app).get(`/admin/queues/${script}`).set(AUTH).expect(200).expect('Content-Type', /javascript/);
  });

  it('lists every queue of the prefix with its counts', async () => {
    await gw.queues?.queues.byName['alert-routing'].add('route-alerts', { items: [{ feedItemId: 'post_console1', userId: 'usr_console1' }] }, { jobId: 'console-listing' });
    const res = await request(gw.app).get('/admin/queues/api/queues').set(AUTH).expect(200);
    const queues = res.body.queues as { name: string; counts: Record<string, number> }[];
    expect(queues.map((queue) => queue.name).sort()).toEqual([...queueNames].sort());
    expect(queues.find((queue) => queue.name === 'alert-routing')?.counts.waiting).toBe(1);
  });

  it('retries a failed job for the operator, and refuses the same change from another site', async () => {
    const testQueues = gw.queues;
    if (!testQueues) throw new Error('no queues');
    const queue = testQueues.queues.byName['outbox-relay'];
    const job = await queue.add('relay-outbox', {}, { jobId: 'console-retry', attempts: 1 });
    const connection = createRedisConnection(gw.env.redisTarget, { role: 'worker' });
    const worker = defineWorker(
      'outbox-relay',
      { 'relay-outbox': async () => Promise.reject(new Error('the outbox could not be read')) },
      { connection, prefix: gw.env.queuePrefix, concurrency: 1, logger: quietLogger },
    );
    try {
      await once(worker.worker, 'failed');
    } finally {
      await worker.close();
      connection.disconnect();
    }
    expect(await job.getState()).toBe('failed');

    const crossSite = await request(gw.app).put(`/admin/queues/api/queues/outbox-relay/${job.id}/retry`).set(AUTH).set('Origin', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe('csrf_failed');
    expect(await job.getState()).toBe('failed');

    await request(gw.app).put(`/admin/queues/api/queues/outbox-relay/${job.id}/retry`).set(AUTH).set('Origin', 'http://localhost:3000').expect(204);
    expect(await job.getState()).toBe('waiting');
    expect(gw.logs).toContainEqual(expect.objectContaining({ message: 'queue console change', method: 'PUT', status: 204 }));
  });

  it('shows a queue an upgrade left under the former key layout, and a retry there reaches the queue of today', async () => {
    const testQueues = gw.queues;
    if (!testQueues) throw new Error('no queues');
    const connection = createRedisConnection(gw.env.redisTarget, { role: 'worker' });
    // The former layout: the queue's keys straight under the prefix, `<prefix>:alert-routing:…`.
    const former = new Queue('alert-routing', { connection, prefix: gw.env.queuePrefix });
    const job = await former.add('route-alerts', { items: [{ feedItemId: 'post_former1', userId: 'usr_former1' }] }, { jobId: 'former-failed', attempts: 1 });
    const oldWorker = new Worker('alert-routing', () => Promise.reject(new UnrecoverableError('routing failed before the upgrade')), { connection, prefix: gw.env.queuePrefix });
    try {
      await once(oldWorker, 'failed');
    } finally {
      await oldWorker.close();
    }
    const formerQueues = await formerLayoutQueues(testQueues.queues, testQueues.producer);
    try {
      expect(formerQueues.map((queue) => queue.name)).toEqual(['alert-routing']);
      const app = createApp({ ...gw.deps, queueConsole: { credentials: OPERATOR, queues: testQueues.queues, formerQueues } });
      const listed = await request(app).get('/admin/queues/api/queues').set(AUTH).expect(200);
      expect((listed.body.queues as { name: string }[]).map((queue) => queue.name)).toContain('former-alert-routing');
      await request(app).put(`/admin/queues/api/queues/former-alert-routing/${job.id}/retry`).set(AUTH).expect(204);
      expect(await job.getState()).toBe('waiting');
      // The workers' periodic move takes it to the queue they run from, under the same id.
      expect(await moveLegacyJobs(testQueues.queues, testQueues.producer)).toBe(1);
      expect(await testQueues.queues.byName['alert-routing'].getJobState('former-failed')).toBe('waiting');
    } finally {
      await Promise.all(formerQueues.map((queue) => queue.close()));
      await former.close();
      connection.disconnect();
    }
  });

  it('stops answering an address that keeps guessing, even with the right password, until the window ends', async () => {
    for (let attempt = 0; attempt < CONSOLE_FAILED_LOGINS.points; attempt += 1) {
      await request(gw.app).get('/admin/queues/api/queues').set('Authorization', basic(OPERATOR.user, `guess ${attempt}`)).expect(401);
    }
    const locked = await request(gw.app).get('/admin/queues/api/queues').set(AUTH).expect(429);
    expect(locked.body.error.code).toBe('rate_limited');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('cuts a burst of parallel guesses off at the limit: each attempt is counted before the password is compared', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, attempt) => request(gw.app).get('/admin/queues/api/queues').set('Authorization', basic(OPERATOR.user, `parallel guess ${attempt}`))),
    );
    expect(answers.filter((res) => res.status === 401)).toHaveLength(CONSOLE_FAILED_LOGINS.points);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(40 - CONSOLE_FAILED_LOGINS.points);
  });

  it('gives the operator’s own requests back: the right credentials never use up the limit', async () => {
    for (let n = 0; n < CONSOLE_FAILED_LOGINS.points + 5; n += 1) await request(gw.app).get('/admin/queues/api/queues').set(AUTH).expect(200);
  });
});

describe('queue console without ADMIN_USER and ADMIN_PASSWORD', () => {
  const gw = useGateway();

  it('is not mounted: /admin/queues is the API 404, not the dashboard', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await request(gw.app).get(path).set(AUTH).expect(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });
});
