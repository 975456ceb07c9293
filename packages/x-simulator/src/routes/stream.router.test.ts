import { get, type IncomingMessage } from 'node:http';
import request from 'supertest';
import { APP_HEADERS as APP, APP_TOKEN, USER_HEADERS as USER, recordedAnswerText, simulatorWithClock, startTestSimulator, type StartedTestSimulator } from '../testing';

const RULES = '/2/tweets/search/stream/rules';
const STREAM = '/2/tweets/search/stream';

describe('filtered-stream rules', () => {
  const sim = simulatorWithClock({ streamMaxRules: 3, streamRuleMaxLength: 20 });
  beforeEach(() => sim.state.reset());

  it('adds rules with ids, lists them, and deletes them by id, answering X’s meta.summary', async () => {
    const added = await request(sim.app)
      .post(RULES)
      .set(APP)
      .send({ add: [{ value: '#btc', tag: 'btc' }, { value: '$tsla' }] })
      .expect(200);
    expect(added.body.data).toEqual([
      { id: expect.stringMatching(/^\d+$/), value: '#btc', tag: 'btc' },
      { id: expect.stringMatching(/^\d+$/), value: '$tsla' },
    ]);
    expect(added.body.meta).toEqual({ sent: '2026-11-22T12:00:00.000Z', summary: { created: 2, not_created: 0, valid: 2, invalid: 0 } });

    const listed = await request(sim.app).get(RULES).set(APP).expect(200);
    expect(listed.body.data).toEqual(added.body.data);
    expect(listed.body.meta).toEqual({ sent: '2026-11-22T12:00:00.000Z', result_count: 2 });

    const [first, second] = added.body.data as { id: string }[];
    const one = await request(sim.app).get(RULES).query({ ids: second!.id }).set(APP).expect(200);
    expect(one.body.data).toEqual([added.body.data[1]]);
    const page = await request(sim.app).get(RULES).query({ max_results: 1 }).set(APP).expect(200);
    expect(page.body.data).toEqual([added.body.data[0]]);
    const next = await request(sim.app).get(RULES).query({ max_results: 1, pagination_token: page.body.meta.next_token }).set(APP).expect(200);
    expect(next.body.data).toEqual([added.body.data[1]]);
    expect(next.body.meta.next_token).toBeUndefined();

    const deleted = await request(sim.app).post(RULES).set(APP).send({ delete: { ids: [first!.id, '42'] } }).expect(200);
    expect(deleted.body.meta.summary).toEqual({ deleted: 1, not_deleted: 1 });
    expect(deleted.body.errors).toEqual([expect.objectContaining({ value: '42', type: 'https://api.twitter.com/2/problems/resource-not-found' })]);
    const byValue = await request(sim.app).post(RULES).set(APP).send({ delete: { values: ['$tsla'] } }).expect(200);
    expect(byValue.body.meta.summary).toEqual({ deleted: 1, not_deleted: 0 });
    const empty = await request(sim.app).get(RULES).set(APP).expect(200);
    expect(empty.body).toEqual({ meta: { sent: '2026-11-22T12:00:00.000Z', result_count: 0 } });
  });

  it('dry_run validates without creating; delete_all removes every rule', async () => {
    const dry = await request(sim.app).post(`${RULES}?dry_run=true`).set(APP).send({ add: [{ value: '#eth' }] }).expect(200);
    expect(dry.body.meta.summary).toEqual({ created: 0, not_created: 1, valid: 1, invalid: 0 });
    expect(sim.state.stream.ruleCount(APP_TOKEN)).toBe(0);
    await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#eth' }, { value: '#sol' }] }).expect(200);
    const all = await request(sim.app).post(`${RULES}?delete_all=true`).set(APP).send({}).expect(200);
    expect(all.body.meta.summary).toEqual({ deleted: 2, not_deleted: 0 });
    expect(sim.state.stream.ruleCount(APP_TOKEN)).toBe(0);
  });

  it('reports invalid, duplicate and over-the-cap rules per rule in errors and creates none of the request', async () => {
    await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#btc' }] }).expect(200);
    const stored = sim.state.stream.rules(APP_TOKEN)[0]!;
    const res = await request(sim.app)
      .post(RULES)
      .set(APP)
      .send({ add: [{ value: '#btc' }, { value: 'a OR' }, { value: 'x'.repeat(21) }, { value: '#eth' }] })
      .expect(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      { value: '#btc', id: stored.id, title: 'DuplicateRule', type: 'https://api.twitter.com/2/problems/duplicate-rules' },
      { value: 'a OR', details: [expect.any(String)], title: 'UnprocessableEntity', type: 'https://api.twitter.com/2/problems/invalid-rules' },
      { value: 'x'.repeat(21), details: [expect.stringContaining('exceeds the maximum of 20')], title: 'UnprocessableEntity', type: 'https://api.twitter.com/2/problems/invalid-rules' },
    ]);
    expect(res.body.meta.summary).toEqual({ created: 0, not_created: 4, valid: 1, invalid: 3 });
    expect(sim.state.stream.ruleCount(APP_TOKEN)).toBe(1);

    const cap = await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#a' }, { value: '#b' }, { value: '#c' }] }).expect(200);
    expect(cap.body.errors).toEqual([expect.objectContaining({ title: 'RulesCapExceeded', type: 'https://api.twitter.com/2/problems/rule-cap' })]);
    expect(cap.body.meta.summary).toEqual({ created: 0, not_created: 3, valid: 3, invalid: 0 });
    const same = await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#z' }, { value: '#z' }] }).expect(200);
    expect(same.body.errors).toEqual([expect.objectContaining({ value: '#z', type: 'https://api.twitter.com/2/problems/duplicate-rules' })]);
  });

  it('refuses a body that is not exactly one of add / delete / delete_all, and user tokens', async () => {
    const both = await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#a' }], delete: { ids: ['1'] } }).expect(400);
    expect(both.body.type).toBe('https://api.twitter.com/2/problems/invalid-request');
    await request(sim.app).post(RULES).set(APP).send({}).expect(400);
    await request(sim.app).post(RULES).set(APP).set('content-type', 'application/json').send('{nope').expect(400);
    const user = await request(sim.app).get(RULES).set(USER).expect(403);
    expect(user.body).toEqual(expect.objectContaining({ title: 'Unsupported Authentication', type: 'https://api.twitter.com/2/problems/unsupported-authentication' }));
    expect(user.body.detail).toContain('[OAuth 2.0 Application-Only]');
    await request(sim.app).post(RULES).set(USER).send({ add: [{ value: '#a' }] }).expect(403);
  });

  it('counts rules reads and writes in their own windows and takes injected faults', async () => {
    const read = await request(sim.app).get(RULES).set(APP).expect(200);
    expect(read.headers['x-rate-limit-limit']).toBe('450');
    const write = await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#a' }] }).expect(200);
    expect(write.headers['x-rate-limit-limit']).toBe('100');
    sim.state.injectFault({ endpoint: 'stream_rules_write', kind: 'unavailable' });
    await request(sim.app).post(RULES).set(APP).send({ add: [{ value: '#b' }] }).expect(503);
    sim.state.injectFault({ endpoint: 'stream_rules_read', kind: 'rate_limited' });
    await request(sim.app).get(RULES).set(APP).expect(429);
  });
});

/** A raw stream reader: the status, headers and every chunk as it arrives, with arrival times. */
interface RawStream {
  res: IncomingMessage;
  chunks: { at: number; text: string }[];
  ended: Promise<void>;
  lines(): string[];
  close(): void;
}

function connect(base: string, headers: Record<string, string> = APP, query = ''): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = get(`${base}${STREAM}${query}`, { headers }, (res) => {
      const chunks: { at: number; text: string }[] = [];
      res.setEncoding('utf8');
      res.on('data', (text: string) => chunks.push({ at: Date.now(), text }));
      const ended = new Promise<void>((done) => {
        res.on('close', () => done());
        res.on('error', () => done());
      });
      resolve({
        res,
        chunks,
        ended,
        lines: () => chunks.map((chunk) => chunk.text).join('').split('\r\n').filter((line) => line !== ''),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function body(stream: RawStream): Promise<unknown> {
  await stream.ended;
  return JSON.parse(stream.chunks.map((chunk) => chunk.text).join(''));
}

describe('GET /2/tweets/search/stream', () => {
  let x: StartedTestSimulator;
  let open: RawStream[] = [];
  const track = (stream: RawStream) => {
    open.push(stream);
    return stream;
  };

  beforeAll(async () => {
    x = await startTestSimulator({ streamKeepAliveMs: 100 });
  });
  afterAll(async () => {
    await x.close();
  });
  beforeEach(() => x.sim.state.reset());
  afterEach(() => {
    for (const stream of open) stream.close();
    open = [];
  });

  const addRules = (...rules: { value: string; tag?: string }[]) => request(x.url).post(RULES).set(APP).send({ add: rules }).expect(200);

  it('answers 409 RuleConfigurationIssue without rules and 403 to a user token', async () => {
    const none = await connect(x.url);
    expect(none.res.statusCode).toBe(409);
    expect(await body(none)).toEqual(expect.objectContaining({ connection_issue: 'RuleConfigurationIssue', type: 'https://api.twitter.com/2/problems/streaming-connection' }));
    await addRules({ value: '#btc' });
    const user = await connect(x.url, USER);
    expect(user.res.statusCode).toBe(403);
    expect(await body(user)).toEqual(expect.objectContaining({ type: 'https://api.twitter.com/2/problems/unsupported-authentication' }));
  });

  it('holds one connection per app: a second connect is 429 TooManyConnections', async () => {
    await addRules({ value: '#btc' });
    const first = track(await connect(x.url));
    expect(first.res.statusCode).toBe(200);
    expect(first.res.headers['content-type']).toMatch(/^application\/json/);
    expect(first.res.headers['transfer-encoding']).toBe('chunked');
    expect(first.res.headers['x-rate-limit-limit']).toBe('50');
    const second = await connect(x.url);
    expect(second.res.statusCode).toBe(429);
    expect(await body(second)).toEqual(expect.objectContaining({ title: 'ConnectionException', connection_issue: 'TooManyConnections' }));
    expect(x.sim.state.streamStatus().connections).toHaveLength(1);
    first.close();
    await until(() => x.sim.state.streamStatus().connections.length === 0);
    const again = track(await connect(x.url));
    expect(again.res.statusCode).toBe(200);
  });

  it('stays uncompressed, refusals included, when the client takes gzip (axios asks for it even when it reads raw lines), each line flushed as the post is made', async () => {
    await addRules({ value: '#btc' });
    // The client's own field parameters.
    const fields = new URLSearchParams({
      'tweet.fields': 'created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id,note_tweet,attachments,edit_history_tweet_ids,withheld',
      expansions: 'author_id,referenced_tweets.id,referenced_tweets.id.author_id,attachments.media_keys',
      'media.fields': 'type,url,preview_image_url,width,height,alt_text',
      'user.fields': 'username,name,verified,public_metrics,withheld',
    });
    const stream = track(await connect(x.url, { ...APP, 'Accept-Encoding': 'gzip, compress, deflate, br' }, `?${fields}`));
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers['content-encoding']).toBeUndefined();
    expect(stream.res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(stream.res.headers.date).toMatch(/ UTC$/);
    // A compressed stream holds its lines until the connection ends: each must arrive while it is open.
    x.sim.state.injectPost({ author: 'alice', text: 'first & 🐍 #btc' });
    await until(() => stream.lines().length === 1);
    expect(stream.lines()[0]).toContain('"text":"first &amp; \\uD83D\\uDC0D #btc"');
    x.sim.state.injectPost({ author: 'alice', text: 'second #btc' });
    await until(() => stream.lines().length === 2);
    expect(JSON.parse(stream.lines()[1]!).data.text).toBe('second #btc');
    const refused = await connect(x.url, { ...APP, 'Accept-Encoding': 'gzip' });
    expect(refused.res.statusCode).toBe(429);
    expect(refused.res.headers['content-encoding']).toBeUndefined();
    expect(await body(refused)).toEqual(expect.objectContaining({ connection_issue: 'TooManyConnections' }));
  });

  it('delivers an edit as its new version, with the whole edit history', async () => {
    await addRules({ value: '#btc' });
    const stream = track(await connect(x.url));
    const first = x.sim.state.injectPost({ author: 'alice', text: 'gm #btc' });
    const second = x.sim.state.editPost(first.id, { text: 'gm gm #btc' });
    await until(() => stream.lines().length === 2);
    expect(JSON.parse(stream.lines()[1]!).data).toEqual({ id: second.id, text: 'gm gm #btc', edit_history_tweet_ids: [first.id, second.id] });
  });

  it('delivers replayed posts as they are published, in X’s bytes', async () => {
    await addRules({ value: 'tweepy -is:retweet' });
    const stream = track(await connect(x.url));
    const result = x.sim.state.replayRecording(JSON.parse(recordedAnswerText('tweepy__search_recent_default_fields')));
    await until(() => stream.lines().length === Object.keys(result.posts).length);
    const recorded = JSON.parse(recordedAnswerText('tweepy__search_recent_default_fields')).data as { id: string; text: string }[];
    const delivered = stream.lines().map((line) => JSON.parse(line).data as { id: string; text: string });
    expect(delivered.map((post) => post.text)).toEqual(recorded.map((post) => post.text).reverse());
    expect(delivered.map((post) => post.id)).toEqual(recorded.map((post) => result.posts[post.id]).reverse());
  });

  it('delivers each matching post as one line with every matching rule, retweets included, and follows rule changes', async () => {
    const added = await addRules({ value: '#btc', tag: 'btc' }, { value: 'from:alice' });
    const [btc, alice] = added.body.data as { id: string }[];
    const stream = track(await connect(x.url, APP, '?tweet.fields=author_id,created_at&expansions=author_id&user.fields=username'));
    const posted = x.sim.state.injectPost({ author: 'alice', text: 'gm #BTC' });
    x.sim.state.injectPost({ author: 'bob', text: 'nothing here' });
    x.sim.state.addRetweets(posted.id, { usernames: ['carol'] });
    await until(() => stream.lines().length === 2);
    const [first, retweet] = stream.lines().map((line) => JSON.parse(line));
    expect(first).toEqual({
      data: expect.objectContaining({ id: posted.id, text: 'gm #BTC', author_id: expect.any(String), created_at: expect.any(String) }),
      includes: { users: [expect.objectContaining({ username: 'alice' })] },
      matching_rules: [{ id: btc!.id, tag: 'btc' }, { id: alice!.id }],
    });
    expect(retweet.data.text).toBe('RT @alice: gm #BTC');
    expect(retweet.matching_rules).toEqual([{ id: btc!.id, tag: 'btc' }]);

    await request(x.url).post(RULES).set(APP).send({ add: [{ value: '#eth' }] }).expect(200);
    await request(x.url).post(RULES).set(APP).send({ delete: { ids: [btc!.id] } }).expect(200);
    x.sim.state.injectPost({ author: 'dave', text: '#eth and #btc' });
    await until(() => stream.lines().length === 3);
    expect(JSON.parse(stream.lines()[2]!).matching_rules).toEqual([{ id: expect.any(String) }]);
    expect(x.sim.state.streamStatus()).toEqual(expect.objectContaining({ postsDelivered: 3, rules: 2 }));
    // Every delivered post is billed on the stream's endpoint, beside the one connect request.
    const counters = x.sim.state.requestLog.counters().endpoints.stream_connect!;
    expect(counters).toEqual(expect.objectContaining({ requests: 1, postsServed: 3 }));
  });

  it('never delivers posts created while no connection was open', async () => {
    await addRules({ value: '#btc' });
    x.sim.state.injectPost({ author: 'alice', text: 'early #btc' });
    const stream = track(await connect(x.url));
    x.sim.state.injectPost({ author: 'alice', text: 'late #btc' });
    await until(() => stream.lines().length === 1);
    expect(JSON.parse(stream.lines()[0]!).data.text).toBe('late #btc');
  });

  it('writes a blank keep-alive line every streamKeepAliveMs', async () => {
    await addRules({ value: '#btc' });
    const stream = track(await connect(x.url));
    const opened = Date.now();
    await until(() => stream.chunks.length >= 3);
    expect(stream.chunks.slice(0, 3).map((chunk) => chunk.text)).toEqual(['\r\n', '\r\n', '\r\n']);
    expect(stream.chunks[2]!.at - opened).toBeGreaterThanOrEqual(250);
  });

  it('disconnect closes the socket; operational sends X’s error line first', async () => {
    await addRules({ value: '#btc' });
    const plain = track(await connect(x.url));
    expect(x.sim.state.streamDisconnect()).toBe(1);
    await plain.ended;
    const operational = track(await connect(x.url));
    const res = await request(x.url).post('/_sim/stream/disconnect').send({ operational: true }).expect(200);
    expect(res.body).toEqual({ disconnected: 1 });
    await operational.ended;
    expect(JSON.parse(operational.lines()[0]!)).toEqual({
      errors: [expect.objectContaining({ disconnect_type: 'OperationalDisconnect', type: 'https://api.twitter.com/2/problems/operational-disconnect' })],
    });
    await request(x.url).post('/_sim/stream/disconnect').send({ operational: 'yes' }).expect(400);
  });

  it('stall stops posts and keep-alives but keeps the socket open until resume', async () => {
    await addRules({ value: '#btc' });
    const stream = track(await connect(x.url));
    await request(x.url).post('/_sim/stream/stall').expect(200, { stalled: 1 });
    const before = stream.chunks.length;
    x.sim.state.injectPost({ author: 'alice', text: 'stalled #btc' });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(stream.chunks.length).toBe(before);
    const status = await request(x.url).get('/_sim/stream').expect(200);
    expect(status.body.connections).toEqual([expect.objectContaining({ stalled: true })]);
    await request(x.url).post('/_sim/stream/resume').expect(200, { resumed: 1 });
    x.sim.state.injectPost({ author: 'alice', text: 'resumed #btc' });
    await until(() => stream.lines().length === 1);
    expect(JSON.parse(stream.lines()[0]!).data.text).toBe('resumed #btc');
  });

  it('takes injected faults on connect', async () => {
    await addRules({ value: '#btc' });
    x.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'unauthorized' });
    expect((await connect(x.url)).res.statusCode).toBe(401);
    x.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'rate_limited' });
    expect((await connect(x.url)).res.statusCode).toBe(429);
  });

  it('delays delivery by streamLatencyMs', async () => {
    const slow = await startTestSimulator({ streamLatencyMs: 200 });
    try {
      await request(slow.url).post(RULES).set(APP).send({ add: [{ value: '#btc' }] }).expect(200);
      const stream = track(await connect(slow.url));
      const at = Date.now();
      slow.sim.state.injectPost({ author: 'alice', text: '#btc' });
      await until(() => stream.lines().length === 1);
      expect(stream.chunks[stream.chunks.length - 1]!.at - at).toBeGreaterThanOrEqual(190);
    } finally {
      await slow.close();
    }
  });
});
