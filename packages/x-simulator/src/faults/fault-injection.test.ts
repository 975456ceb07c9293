import request from 'supertest';
import { APP_HEADERS as APP, simulatorWithClock } from '../testing';

const SEARCH = '/2/tweets/search/recent';

describe('fault injection', () => {
  it('forces the next N answers of one endpoint to 429 with remaining 0, then serves normally', async () => {
    const sim = simulatorWithClock();
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'rate_limited', count: 2 }).expect(201);
    for (let i = 0; i < 2; i += 1) {
      const res = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
      expect(res.body.errors[0].code).toBe(88);
      expect(res.headers['x-rate-limit-remaining']).toBe('0');
      expect(Number(res.headers['x-rate-limit-reset'])).toBeGreaterThan(sim.clock.now / 1000);
    }
    await request(sim.app).get('/2/tweets/1').set(APP).expect(200);
    const ok = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    // Forced answers do not use up the real window.
    expect(ok.headers['x-rate-limit-remaining']).toBe('449');
  });

  it('forces 503 without rate headers, 500, and the problem-JSON 429', async () => {
    const sim = simulatorWithClock();
    sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'unavailable' });
    sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'internal_error' });
    sim.state.injectFault({ endpoint: 'posts_lookup', kind: 'rate_limited', body: 'problem' });
    const unavailable = await request(sim.app).get('/2/tweets').query({ ids: '1' }).set(APP).expect(503);
    expect(unavailable.body).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect(unavailable.headers['x-rate-limit-limit']).toBeUndefined();
    await request(sim.app).get('/2/tweets').query({ ids: '1' }).set(APP).expect(500);
    const limited = await request(sim.app).get('/2/tweets').query({ ids: '1' }).set(APP).expect(429);
    expect(limited.body).toMatchObject({ title: 'Too Many Requests', type: 'about:blank' });
    await request(sim.app).get('/2/tweets').query({ ids: '1' }).set(APP).expect(200);
  });

  it('forces usage-capped 429 problems, on any endpoint with "*"', async () => {
    const sim = simulatorWithClock();
    sim.state.injectFault({ endpoint: '*', kind: 'usage_capped', count: 2 });
    const first = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
    expect(first.body).toMatchObject({ type: 'https://api.twitter.com/2/problems/usage-capped', period: 'Monthly', scope: 'Product' });
    await request(sim.app).get('/2/users/by/username/a').set(APP).expect(429);
    await request(sim.app).get('/2/users/by/username/a').set(APP).expect(200);
  });

  it('answers an unauthorized fault with X\'s 401 problem, without rate headers, while the token stays valid after it', async () => {
    const sim = simulatorWithClock();
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'unauthorized', count: 2 }).expect(201);
    for (let i = 0; i < 2; i += 1) {
      const refused = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(401);
      expect(refused.body).toEqual({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
      expect(refused.headers['x-rate-limit-remaining']).toBeUndefined();
    }
    await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(sim.state.requestLog.entries({ endpoint: 'search_recent' }).map((entry) => [entry.status, entry.fault])).toEqual([
      [401, 'unauthorized'],
      [401, 'unauthorized'],
      [200, null],
    ]);
  });

  it('answers a rate_limited fault with reset_in_seconds at its own reset, earlier than the window\'s, leaving the window as it is', async () => {
    const sim = simulatorWithClock();
    const first = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    const windowReset = Number(first.headers['x-rate-limit-reset']);
    expect(windowReset).toBe(sim.clock.now / 1000 + 15 * 60);
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: 5 }).expect(201);
    sim.clock.advance(10_000);
    const limited = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
    expect(limited.headers).toMatchObject({ 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(sim.clock.now / 1000 + 5) });
    sim.clock.advance(5_000);
    const after = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(after.headers).toMatchObject({ 'x-rate-limit-remaining': '448', 'x-rate-limit-reset': String(windowReset) });
  });

  it('holds a rate_limited fault for delay_ms and answers it with the headers of the window it arrived in, after that window rolled', async () => {
    const sim = simulatorWithClock({ rateLimitWindowSeconds: 60 });
    const old = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    const oldReset = old.headers['x-rate-limit-reset'];
    sim.state.injectFault({ endpoint: 'search_recent', kind: 'rate_limited', delay_ms: 300 });
    const late = request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).then((res) => res);
    // The fault is taken when the request arrives; the window may roll only after that.
    while (sim.state.faults.pending().length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    sim.clock.advance(61_000);
    const fresh = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(fresh.headers).toMatchObject({ 'x-rate-limit-remaining': '449', 'x-rate-limit-reset': String(sim.clock.now / 1000 + 60) });
    const limited = await late;
    expect(limited.status).toBe(429);
    expect(limited.headers).toMatchObject({ 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': oldReset });
    expect(sim.state.requestLog.entries({ endpoint: 'search_recent' }).map((entry) => entry.status)).toEqual([200, 200, 429]);
  });

  it('refuses reset_in_seconds on other kinds and out of range, and lists it with the pending fault', async () => {
    const sim = simulatorWithClock();
    const refused = await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'unavailable', reset_in_seconds: 5 }).expect(400);
    expect(refused.body.error).toEqual({ code: 'invalid_request', message: 'reset_in_seconds: reset_in_seconds applies to rate_limited faults only' });
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: -1 }).expect(400);
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: 1.5 }).expect(400);
    const added = await request(sim.app).post('/_sim/faults').send({ endpoint: 'search_recent', kind: 'rate_limited', reset_in_seconds: 3, delay_ms: 50 }).expect(201);
    expect(added.body.data).toEqual([expect.objectContaining({ endpoint: 'search_recent', kind: 'rate_limited', remaining: 1, delayMs: 50, resetInSeconds: 3 })]);
  });

  it('holds a slow answer for delay_ms and then serves it', async () => {
    const sim = simulatorWithClock();
    sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', delay_ms: 150 });
    const started = Date.now();
    await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers every request 429 usage-capped once postCap post reads were served', async () => {
    const sim = simulatorWithClock({ postCap: 2 });
    sim.state.injectPost({ author: 'a', text: '#x one' });
    sim.state.injectPost({ author: 'a', text: '#x two' });
    await request(sim.app).get(SEARCH).query({ query: '#x' }).set(APP).expect(200);
    const capped = await request(sim.app).get(SEARCH).query({ query: '#x' }).set(APP).expect(429);
    expect(capped.body.type).toMatch(/usage-capped$/);
  });

  it('lists and clears pending faults', async () => {
    const sim = simulatorWithClock();
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'user_posts', kind: 'unavailable', count: 3 }).expect(201);
    const listed = await request(sim.app).get('/_sim/faults').expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ endpoint: 'user_posts', kind: 'unavailable', remaining: 3 })]);
    await request(sim.app).delete('/_sim/faults').expect(204);
    expect((await request(sim.app).get('/_sim/faults')).body.data).toEqual([]);
    await request(sim.app).post('/_sim/faults').send({ endpoint: 'nowhere', kind: 'unavailable' }).expect(400);
  });
});
