import { Browser, field } from './harness/browser';
import { Suite } from './harness/suite';

const PASSWORD = 'a password for the sign-in limits';
const METRICS_TOKEN = 'e2e-metrics-token-0123456789';

/**
 * Issue 25's sign-in cost and /metrics through the built apps as processes: a right password replayed is still
 * counted (the 31st sign-in in 15 minutes answers 429), an account keeps at most 20 live sessions (the oldest
 * ends), and with METRICS_TOKEN set every app's /metrics needs it as a bearer token.
 */
describe('sign-in limits and METRICS_TOKEN against the built apps', () => {
  let suite: Suite | undefined;

  afterAll(async () => {
    await suite?.stop();
  });

  it('counts successful sign-ins (the 31st is 429), ends the oldest of 21 sessions, and guards /metrics with the token', async () => {
    suite = await Suite.start({ env: { METRICS_TOKEN } });
    const running = suite;
    const origin = running.gateway.baseUrl;
    const email = 'replay@example.com';
    const checkout = await new Browser(origin).call('POST', '/api/checkout', { email, plan: 'pro', password: PASSWORD });
    expect(checkout.status).toBe(201);

    const first = new Browser(origin);
    expect((await first.call('POST', '/session', { email, password: PASSWORD })).status).toBe(200);
    expect((await first.readSession()).status).toBe(200);
    for (let n = 2; n <= 30; n += 1) {
      const answer = await new Browser(origin).call('POST', '/session', { email, password: PASSWORD });
      expect(answer.status).toBe(200);
      // The 21st session ends the first.
      if (n === 21) expect((await first.call('GET', '/session')).status).toBe(401);
    }
    const refused = await fetch(`${origin}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(field({ status: 429, body: ((await refused.json()) as { error: Record<string, unknown> }).error, setCookie: [] }, 'code')).toBe('rate_limited');

    const apps = running.apps.filter((handle) => handle.app !== 'x-sim' && handle.isRunning());
    expect(apps.map((handle) => handle.app).sort()).toEqual(['engagement-poller', 'gateway', 'notifier', 'scanner']);
    for (const handle of apps) {
      const url = `http://127.0.0.1:${handle.port}/metrics`;
      for (const authorization of [undefined, 'Bearer wrong-token-of-some-length', `Basic ${METRICS_TOKEN}`]) {
        const res = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
        expect({ app: handle.app, status: res.status }).toEqual({ app: handle.app, status: 401 });
        expect(await res.text()).not.toContain('process_cpu_user_seconds_total');
      }
      const allowed = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect({ app: handle.app, status: allowed.status }).toEqual({ app: handle.app, status: 200 });
      expect(await allowed.text()).toContain('process_cpu_user_seconds_total');
    }
  });
});
