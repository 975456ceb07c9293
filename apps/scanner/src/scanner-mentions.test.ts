import { useScannerFixture } from './test-support/scanner-fixture';

// Each test uses its own handles, so sources of earlier tests never interfere.
describe('mentions of a watched account against the X simulator', () => {
  const fx = useScannerFixture({ searchIncludesRetweets: true });

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }
  const queries = () => fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).map((entry) => String(entry.query.query));
  const matched = async (userId: string) => (await fx.items(userId)).map((item) => [item.x_post_id, item.type, item.account, item.matched_by]);

  it('detects posts mentioning the handle for the trackers that ask, as account items matched by mention', async () => {
    const brand = await fx.account();
    const plain = await fx.account();
    const chatty = await fx.account();
    await fx.accountTrack(brand, 'AcmeCo', { includeMentions: true });
    await fx.accountTrack(plain, 'acmeco');
    await fx.accountTrack(chatty, 'acmeco', { includeMentions: true, excludeReplies: false });

    const own = fx.sim.state.injectPost({ author: 'acmeco', text: 'our launch is today' });
    const mention = fx.sim.state.injectPost({ author: 'fan1', text: 'loving what @AcmeCo ships' });
    const reply = fx.sim.state.injectPost({ author: 'fan2', text: '@acmeco congrats', reply_to: own.id });
    fx.sim.state.injectPost({ author: 'fan3', retweet_of: own.id });
    fx.sim.state.injectPost({ author: 'fan4', text: 'nothing about @acmecorp' });
    await tick();

    expect(queries().some((query) => query.includes('from:acmeco OR @acmeco'))).toBe(true);
    expect(await matched(brand)).toEqual([[own.id, 'account', 'AcmeCo', 'author'], [mention.id, 'account', 'AcmeCo', 'mention']]);
    expect(await matched(plain)).toEqual([[own.id, 'account', 'acmeco', 'author']]);
    // Replies to the handle are mentions too, unless the track excludes replies (the default).
    expect(await matched(chatty)).toEqual([[own.id, 'account', 'acmeco', 'author'], [mention.id, 'account', 'acmeco', 'mention'], [reply.id, 'account', 'acmeco', 'mention']]);
    // The silence detector learns the account's own pace: one post, not three.
    const { rows } = await fx.pool().query<{ last_post_at: Date | null }>("SELECT last_post_at FROM source_activity WHERE source_key = 'user:acmeco'");
    expect(rows[0]?.last_post_at?.getTime()).toBe(Math.floor(own.createdAt / 1000) * 1000);
  });

  it('searches the handle without @ once no tracker asks for mentions', async () => {
    fx.sim.state.createUser({ username: 'quietco' });
    const user = await fx.account();
    const id = await fx.accountTrack(user, 'quietco', { includeMentions: true });
    await tick();
    expect(queries().filter((query) => query.includes('quietco')).at(-1)).toContain('from:quietco OR @quietco');
    await fx.pool().query('UPDATE account_tracks SET include_mentions = false WHERE id = $1', [id]);
    fx.sim.state.injectPost({ author: 'fan5', text: 'hey @quietco' });
    await tick();
    const last = queries().filter((query) => query.includes('quietco')).at(-1) ?? '';
    expect(last).toContain('from:quietco');
    expect(last).not.toContain('@quietco');
    expect(await fx.items(user)).toEqual([]);
  });

  it('reads a span again with mentions when a tracker asks for them mid-scan', async () => {
    fx.sim.state.createUser({ username: 'midco' });
    const early = await fx.account();
    await fx.accountTrack(early, 'midco');
    await tick();
    const cursor = async () => (await fx.pool().query<{ since_id: string | null }>("SELECT since_id FROM source_cursors WHERE source_key = 'user:midco'")).rows[0]?.since_id;
    const before = await cursor();

    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 1500 });
    const scan = tick();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = await fx.account();
    await fx.accountTrack(late, 'midco', { includeMentions: true, createdAt: new Date() });
    const mention = fx.sim.state.injectPost({ author: 'fan6', text: 'ping @midco' });
    const own = fx.sim.state.injectPost({ author: 'midco', text: 'hello' });
    await scan;
    expect(await cursor()).toBe(before);

    await tick();
    expect(await matched(late)).toEqual([[mention.id, 'account', 'midco', 'mention'], [own.id, 'account', 'midco', 'author']]);
    expect(await matched(early)).toEqual([[own.id, 'account', 'midco', 'author']]);
  });
});
