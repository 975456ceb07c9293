import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XAuthError, XRateLimitedError, XStreamNoRulesError, XUnavailableError, type XApiError } from './x-errors';
import { streamReconnectDelayMs, STREAM_READ_TIMEOUT_MS, type OpenStreamOptions, type XStreamEnd, type XStreamPost } from './x-stream';
import { APP_TOKEN, USER_TOKEN, useXClientFixture } from './test-support/x-client-fixture';
import type { XClient } from './x-client';

async function failure(promise: Promise<unknown>): Promise<XApiError> {
  try {
    await promise;
  } catch (error) {
    return error as XApiError;
  }
  throw new Error('expected the call to fail');
}

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An open stream under test: its posts, activity, and the promise of its end. */
interface OpenedStream {
  posts: XStreamPost[];
  activity: number[];
  connectedAt: number;
  controller: AbortController;
  ended: Promise<XStreamEnd>;
}

/** Opens a stream and resolves once the 200 has arrived. */
async function open(client: XClient, options: Partial<OpenStreamOptions> = {}): Promise<OpenedStream> {
  const controller = new AbortController();
  const posts: XStreamPost[] = [];
  const activity: number[] = [];
  let connected!: (at: number) => void;
  const connectedAt = new Promise<number>((resolve) => (connected = resolve));
  const ended = client.openStream({
    signal: controller.signal,
    onConnected: connected,
    onActivity: (at) => activity.push(at),
    onPost: (event) => {
      posts.push(event);
    },
    ...options,
  });
  const at = await Promise.race([connectedAt, ended.then((end) => Promise.reject(new Error(`ended before connecting: ${end.reason}`)))]);
  return { posts, activity, connectedAt: at, controller, ended };
}

describe('filtered-stream rules through the client', () => {
  const x = useXClientFixture({ streamMaxRules: 3 });
  beforeEach(() => x.sim.state.reset());

  it('adds, lists (every page), dry-runs and deletes rules', async () => {
    const client = x.client();
    const added = await client.addStreamRules([{ value: '#btc', tag: 'btc' }, { value: '$tsla' }]);
    expect(added).toEqual({
      created: [
        { id: expect.stringMatching(/^\d+$/), value: '#btc', tag: 'btc' },
        { id: expect.stringMatching(/^\d+$/), value: '$tsla', tag: undefined },
      ],
      deleted: 0,
      errors: [],
    });
    expect(await client.streamRules()).toEqual(added.created);
    expect(x.requests('stream_rules_write')).toBe(1);

    const dry = await client.addStreamRules([{ value: '#eth' }], { dryRun: true });
    expect(dry.errors).toEqual([]);
    expect(await client.streamRules()).toHaveLength(2);

    const deleted = await client.deleteStreamRules([added.created[0]!.id]);
    expect(deleted).toEqual({ created: [], deleted: 1, errors: [] });
    expect((await client.streamRules()).map((rule) => rule.value)).toEqual(['$tsla']);
    expect(await client.addStreamRules([])).toEqual({ created: [], deleted: 0, errors: [] });
    expect(await client.deleteStreamRules([])).toEqual({ created: [], deleted: 0, errors: [] });
  });

  it('returns refused rules as typed errors: duplicate, invalid, over the cap', async () => {
    const client = x.client();
    const first = await client.addStreamRules([{ value: '#btc' }]);
    const refused = await client.addStreamRules([{ value: '#btc' }, { value: 'a OR' }]);
    expect(refused.created).toEqual([]);
    expect(refused.errors).toEqual([
      { type: 'duplicate-rules', value: '#btc', id: first.created[0]!.id, detail: 'DuplicateRule' },
      { type: 'invalid-rules', value: 'a OR', detail: expect.any(String) },
    ]);
    const cap = await client.addStreamRules([{ value: '#a' }, { value: '#b' }, { value: '#c' }]);
    expect(cap.errors).toEqual([{ type: 'rule-cap', detail: expect.stringContaining('Rule cap') }]);
    const unknown = await client.deleteStreamRules(['42']);
    expect(unknown).toEqual({ created: [], deleted: 0, errors: [expect.objectContaining({ value: '42', type: 'resource-not-found' })] });
  });

  it('refuses bad input before calling, and types X’s refusals', async () => {
    const client = x.client();
    await expect(client.deleteStreamRules(['not-an-id'])).rejects.toMatchObject({ code: 'x_invalid_request' });
    await expect(client.addStreamRules([{ value: '' }])).rejects.toMatchObject({ code: 'x_invalid_request' });
    expect(await failure(x.client({ bearerToken: USER_TOKEN }).streamRules())).toBeInstanceOf(XAuthError);
    x.sim.state.injectFault({ endpoint: 'stream_rules_write', kind: 'unavailable' });
    expect(await failure(client.addStreamRules([{ value: '#a' }]))).toBeInstanceOf(XUnavailableError);
  });

  it('keeps the rules endpoints on the shared budget: a 429 blocks the next call of any replica', async () => {
    x.sim.state.injectFault({ endpoint: 'stream_rules_read', kind: 'rate_limited', reset_in_seconds: 30 });
    expect(await failure(x.client().streamRules())).toMatchObject({ kind: 'rate_limit', upstream: true, endpoint: 'stream_rules_read' });
    expect(await failure(x.client().streamRules())).toMatchObject({ kind: 'rate_limit', upstream: false });
    expect(await x.redis.exists(`${x.keyPrefix}:xrl:stream_rules_read`)).toBe(1);
    // Earlier tests' windows may end in the same second, where the lower remaining wins: start from none.
    await x.redis.del(`${x.keyPrefix}:xrl:stream_rules_write`);
    await x.client().addStreamRules([{ value: '#a' }]);
    expect(await x.client().readBudget('stream_rules_write')).toMatchObject({ limit: 100, remaining: 99 });
    await x.redis.del(`${x.keyPrefix}:xrl:stream_rules_read`);
  });
});

describe('a rule list longer than one page', () => {
  const x = useXClientFixture({ streamMaxRules: 5000 });

  it('reads every page (X pages rules by 1,000 at most)', async () => {
    const values = Array.from({ length: 1203 }, (_, i) => `#tag${i}`);
    x.sim.state.stream.addRules(APP_TOKEN, values.map((value) => ({ value })), false);
    const rules = await x.client().streamRules();
    expect(rules.map((rule) => rule.value)).toEqual(values);
    expect(x.requests('stream_rules_read')).toBe(2);
  });
});

describe('openStream against the simulator', () => {
  const x = useXClientFixture({ streamKeepAliveMs: 100 });
  const opened: OpenedStream[] = [];

  beforeEach(async () => {
    x.sim.state.reset();
    await x.redis.del(`${x.keyPrefix}:xrl:stream_connect`);
  });
  afterEach(async () => {
    for (const stream of opened.splice(0)) {
      stream.controller.abort();
      await stream.ended.catch(() => undefined);
    }
  });
  const track = (stream: OpenedStream) => {
    opened.push(stream);
    return stream;
  };

  it('delivers posts in order with their matching rules, awaiting onPost before the next line', async () => {
    const client = x.client();
    const { created } = await client.addStreamRules([{ value: '#btc', tag: 'btc' }, { value: 'from:alice' }]);
    const handled: string[] = [];
    const stream = track(
      await open(client, {
        onPost: async (event) => {
          handled.push(`start ${event.post.text}`);
          await sleep(50);
          handled.push(`end ${event.post.text}`);
        },
      }),
    );
    const first = x.sim.state.injectPost({ author: 'alice', text: 'one #btc' });
    x.sim.state.injectPost({ author: 'bob', text: 'two #btc' });
    x.sim.state.injectPost({ author: 'bob', text: 'not matching' });
    await until(() => handled.length === 4);
    expect(handled).toEqual(['start one #btc', 'end one #btc', 'start two #btc', 'end two #btc']);
    expect(x.requests('stream_connect')).toBe(1);

    const seen: XStreamPost[] = [];
    stream.controller.abort();
    await stream.ended;
    const again = track(await open(client, { onPost: (event) => void seen.push(event) }));
    x.sim.state.injectPost({ author: 'alice', text: 'three #btc' });
    await until(() => seen.length === 1);
    const [event] = seen;
    expect(event!.matchingRules).toEqual([{ id: created[0]!.id, tag: 'btc' }, { id: created[1]!.id, tag: undefined }]);
    expect(event!.post).toMatchObject({ text: 'three #btc', author: { username: 'alice' }, hashtags: [{ tag: 'btc' }] });
    expect(event!.receivedAt).toBeGreaterThanOrEqual(again.connectedAt);
    expect(first.id).toBeDefined();
  });

  it('delivers retweets, which search no longer returns', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const stream = track(await open(client));
    const original = x.sim.state.injectPost({ author: 'alice', text: 'gm #btc' });
    x.sim.state.addRetweets(original.id, { usernames: ['bob'] });
    await until(() => stream.posts.length === 2);
    expect(stream.posts[1]!.post).toMatchObject({ isRetweet: true, referencedPosts: [{ type: 'retweeted', id: original.id }] });
  });

  it('stays open on keep-alives, and ends aborted when the signal fires', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const stream = track(await open(client, { readTimeoutMs: 300 }));
    await sleep(700);
    expect(stream.activity.length).toBeGreaterThanOrEqual(4);
    stream.controller.abort();
    await expect(stream.ended).resolves.toMatchObject({ reason: 'aborted' });
  });

  it('ends with timeout within readTimeoutMs when the connection stalls', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const stream = track(await open(client, { readTimeoutMs: 300 }));
    await sleep(150);
    x.sim.state.streamStall();
    const stalledAt = Date.now();
    const end = await stream.ended;
    expect(end).toMatchObject({ reason: 'timeout' });
    expect(Date.now() - stalledAt).toBeLessThan(300 + 250);
    await until(() => x.sim.state.streamStatus().connections.length === 0);
  });

  it('ends closed when X drops the connection, operational_disconnect on X’s error line', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const plain = track(await open(client));
    x.sim.state.streamDisconnect();
    await expect(plain.ended).resolves.toMatchObject({ reason: 'closed' });
    const operational = track(await open(client));
    x.sim.state.streamDisconnect({ operational: true });
    await expect(operational.ended).resolves.toMatchObject({ reason: 'operational_disconnect', detail: 'OperationalDisconnect' });
  });

  it('throws XRateLimitedError (too_many_connections) for a second connection, without blocking the budget', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    track(await open(client));
    const error = await failure(open(x.client()));
    expect(error).toBeInstanceOf(XRateLimitedError);
    expect(error).toMatchObject({ kind: 'too_many_connections', status: 429, endpoint: 'stream_connect' });
    expect((await client.readBudget('stream_connect'))?.blockedUntil ?? null).toBeNull();
  });

  it('throws XStreamNoRulesError for 409, XAuthError for a user token, typed errors for injected faults', async () => {
    const none = await failure(open(x.client()));
    expect(none).toBeInstanceOf(XStreamNoRulesError);
    expect(none).toMatchObject({ code: 'x_stream_no_rules', status: 409 });
    await x.client().addStreamRules([{ value: '#btc' }]);
    const user = await failure(open(x.client({ bearerToken: USER_TOKEN })));
    expect(user).toBeInstanceOf(XAuthError);
    expect(user.status).toBe(403);
    expect(user.message).not.toContain(USER_TOKEN);
    x.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'unavailable' });
    expect(await failure(open(x.client()))).toMatchObject({ code: 'x_unavailable', status: 503 });
    x.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'unauthorized' });
    expect(await failure(open(x.client()))).toBeInstanceOf(XAuthError);
    x.sim.state.injectFault({ endpoint: 'stream_connect', kind: 'rate_limited', reset_in_seconds: 30 });
    const limited = await failure(open(x.client()));
    expect(limited).toMatchObject({ kind: 'rate_limit', upstream: true });
    // The 429 blocks the shared budget: the next connect is refused before it leaves.
    const blocked = await failure(open(x.client()));
    expect(blocked).toMatchObject({ kind: 'rate_limit', upstream: false });
  });

  it('resolves aborted when aborted before the connection is established', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(client.openStream({ signal: controller.signal, onPost: () => undefined })).resolves.toMatchObject({ reason: 'aborted' });
  });
});

describe('openStream in the 2.167 spelling', () => {
  const x = useXClientFixture({ naming: 'v2.167' });

  it('reads repost_count, referenced_posts and edit_history_post_ids', async () => {
    const client = x.client();
    await client.addStreamRules([{ value: '#btc' }]);
    const stream = await open(client);
    const original = x.sim.state.injectPost({ author: 'alice', text: 'gm #btc' });
    x.sim.state.addRetweets(original.id, { usernames: ['bob'] });
    await until(() => stream.posts.length === 2);
    stream.controller.abort();
    await stream.ended;
    expect(stream.posts[0]!.post).toMatchObject({ metrics: { retweetCount: 0 }, editHistoryPostIds: [original.id] });
    expect(stream.posts[1]!.post).toMatchObject({ isRetweet: true, referencedPosts: [{ type: 'retweeted', id: original.id }] });
  });
});

describe('openStream against a misbehaving server', () => {
  const x = useXClientFixture();
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('\r\n{not json\r\n');
      res.write('{"unexpected":true}\r\n');
      // A post split across two chunks, then the end.
      res.write('{"data":{"id":"1","text":"split #');
      setTimeout(() => res.end('btc"},"matching_rules":[{"id":"9"}]}\r\n'), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('skips and counts malformed lines, joins split lines, and ends closed', async () => {
    const posts: XStreamPost[] = [];
    const end = await x.client({ baseUrl: url }).openStream({ signal: new AbortController().signal, onPost: (event) => void posts.push(event) });
    expect(end).toEqual({ reason: 'closed', malformedLines: 2, posts: 1 });
    expect(posts.map((event) => [event.post.text, event.matchingRules])).toEqual([['split #btc', [{ id: '9', tag: undefined }]]]);
  });
});

describe('openStream against a server that never answers', () => {
  const x = useXClientFixture();
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('throws XUnavailableError (timeout) when no headers come within timeoutMs', async () => {
    const started = Date.now();
    const error = await failure(x.client({ baseUrl: url, timeoutMs: 200 }).openStream({ signal: new AbortController().signal, onPost: () => undefined }));
    expect(error).toBeInstanceOf(XUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout', endpoint: 'stream_connect' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('streamReconnectDelayMs', () => {
  it('follows X’s advice', () => {
    expect([1, 2, 3, 64, 65, 100].map((n) => streamReconnectDelayMs('network', n))).toEqual([250, 500, 750, 16_000, 16_000, 16_000]);
    expect([1, 2, 3, 7, 8, 20].map((n) => streamReconnectDelayMs('http', n))).toEqual([5_000, 10_000, 20_000, 320_000, 320_000, 320_000]);
    expect([1, 2, 3, 4].map((n) => streamReconnectDelayMs('rate_limited', n))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(Number.isFinite(streamReconnectDelayMs('rate_limited', 10_000))).toBe(true);
    expect(() => streamReconnectDelayMs('http', 0)).toThrow(RangeError);
    expect(STREAM_READ_TIMEOUT_MS).toBe(30_000);
  });
});
