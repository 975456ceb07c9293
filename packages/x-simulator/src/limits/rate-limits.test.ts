import request from 'supertest';
import { DEFAULT_APP_TOKEN } from '../simulator-options';
import { APP_HEADERS as APP, USER_HEADERS as USER, simulatorWithClock } from '../testing';

const SEARCH = '/2/tweets/search/recent';

describe('rate limits', () => {
  it('puts x-rate-limit-limit/remaining/reset on every authenticated answer, 400 included', async () => {
    const sim = simulatorWithClock();
    const ok = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    const bad = await request(sim.app).get(SEARCH).query({ query: '(' }).set(APP).expect(400);
    const reset = String(Math.ceil((sim.clock.now + 15 * 60_000) / 1000));
    expect(ok.headers).toMatchObject({ 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': '449', 'x-rate-limit-reset': reset });
    expect(bad.headers).toMatchObject({ 'x-rate-limit-remaining': '448', 'x-rate-limit-reset': reset });
  });

  it('answers 401 problem JSON without rate headers to a missing or unknown token', async () => {
    const sim = simulatorWithClock();
    for (const headers of [{}, { Authorization: 'Bearer nope' }, { Authorization: `Basic ${DEFAULT_APP_TOKEN}` }]) {
      const res = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(headers).expect(401);
      expect(res.body).toEqual({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
      expect(res.headers['x-rate-limit-limit']).toBeUndefined();
    }
  });

  it('answers 429 code 88 once the window is used up, until the window resets', async () => {
    const sim = simulatorWithClock({ rateLimits: { search_recent: { app: 2 } }, rateLimitWindowSeconds: 60 });
    await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    const last = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(last.headers['x-rate-limit-remaining']).toBe('0');
    const limited = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
    expect(limited.body).toEqual({ errors: [{ code: 88, message: 'Rate limit exceeded' }] });
    expect(limited.headers).toMatchObject({ 'x-rate-limit-limit': '2', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(Math.ceil((sim.clock.now + 60_000) / 1000)) });
    sim.clock.advance(60_000);
    const fresh = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    expect(fresh.headers['x-rate-limit-remaining']).toBe('1');
  });

  it('answers the problem-JSON 429 when configured to', async () => {
    const sim = simulatorWithClock({ rateLimits: { search_recent: { app: 0 } }, rateLimitBody: 'problem' });
    const res = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
    expect(res.body).toEqual({ title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 });
  });

  it('keeps separate windows per endpoint and per token, with user-token limits for user tokens', async () => {
    const sim = simulatorWithClock({ rateLimits: { search_recent: { app: 1, user: 5 } } });
    await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(200);
    await request(sim.app).get(SEARCH).query({ query: '#a' }).set(APP).expect(429);
    const asUser = await request(sim.app).get(SEARCH).query({ query: '#a' }).set(USER).expect(200);
    expect(asUser.headers).toMatchObject({ 'x-rate-limit-limit': '5', 'x-rate-limit-remaining': '4' });
    const lookup = await request(sim.app).get('/2/users/by/username/alice').set(APP).expect(200);
    expect(lookup.headers['x-rate-limit-limit']).toBe('300');
  });

  it('changes limits and windows at run time through PUT /_sim/rate-limits', async () => {
    const sim = simulatorWithClock();
    await request(sim.app).put('/_sim/rate-limits').send({ endpoint: 'post_by_id', app: 1, window_seconds: 10 }).expect(200);
    await request(sim.app).get('/2/tweets/1').set(APP).expect(200);
    await request(sim.app).get('/2/tweets/1').set(APP).expect(429);
    sim.clock.advance(10_000);
    await request(sim.app).get('/2/tweets/1').set(APP).expect(200);
    await request(sim.app).get('/2/tweets/1').set(APP).expect(429);
    await request(sim.app).post('/_sim/rate-limits/reset').expect(204);
    await request(sim.app).get('/2/tweets/1').set(APP).expect(200);
  });
});
