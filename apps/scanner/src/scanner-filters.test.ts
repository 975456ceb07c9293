import { NO_FILTERS, type SourceFilters } from '@hashwatch/post-filters';
import { useScannerFixture } from './test-support/scanner-fixture';

const filters = (changes: Partial<SourceFilters>): SourceFilters => ({ ...NO_FILTERS, ...changes });

// Each test uses its own tags and handles, so sources of earlier tests never interfere.
describe('per-track filters against the X simulator', () => {
  const fx = useScannerFixture({ searchIncludesRetweets: true });

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }
  const postIds = async (userId: string) => (await fx.items(userId)).map((item) => item.x_post_id);
  const queries = () => fx.sim.state.requestLog.entries({ endpoint: 'search_recent' }).map((entry) => String(entry.query.query));
  /** The clause of the newest query that served the tag (earlier tests' sources share packs with it). */
  const clauseOf = (tag: string) => {
    const query = queries().filter((text) => text.includes(`#${tag}`)).at(-1) ?? '';
    return query.slice(1, -1).split(' OR ').find((clause) => clause.startsWith(`#${tag}`));
  };

  it('gives each account what its own filters pass from one query for every tracker of the tag', async () => {
    fx.sim.state.createUser({ username: 'bigdesk', verified: true, followers_count: 50_000 });
    fx.sim.state.createUser({ username: 'smallfry', followers_count: 12 });
    const everything = await fx.account();
    const reach = await fx.account();
    const words = await fx.account();
    const visual = await fx.account();
    await fx.track(everything, 'Yield');
    await fx.track(reach, 'yield', { filters: filters({ verified_only: true, min_followers: 10_000 }) });
    await fx.track(words, 'YIELD', { filters: filters({ keywords_any: ['ETF', '"all time high"'], keywords_none: ['giveaway'] }) });
    await fx.track(visual, 'yield', { filters: filters({ has_media: true, exclude_quotes: true }) });
    const before = fx.searchRequests();

    const big = fx.sim.state.injectPost({ author: 'bigdesk', text: 'the #yield curve &amp; an ETF' });
    const small = fx.sim.state.injectPost({ author: 'smallfry', text: '#yield at an All Time  High' });
    const giveaway = fx.sim.state.injectPost({ author: 'smallfry', text: '#yield ETF GIVEAWAY' });
    const chart = fx.sim.state.injectPost({ author: 'smallfry', text: '#yield chart', media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/c.jpg', width: 800, height: 600 }] });
    const quotedChart = fx.sim.state.injectPost({ author: 'smallfry', text: '#yield look', quote_of: chart.id, media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/c.jpg', width: 800, height: 600 }] });
    const etfish = fx.sim.state.injectPost({ author: 'bigdesk', text: '#yield etfs are not an etf_ word' });

    await tick();
    expect(fx.searchRequests() - before).toBe(1);
    expect(await postIds(everything)).toEqual([big.id, small.id, giveaway.id, chart.id, quotedChart.id, etfish.id]);
    expect(await postIds(reach)).toEqual([big.id, etfish.id]);
    expect(await postIds(words)).toEqual([big.id, small.id]);
    expect(await postIds(visual)).toEqual([chart.id]);
    // Alerts go out for what was stored, and only that is counted.
    expect((await fx.usage(words))?.alerts_used).toBe(2);
    // What the post and its author showed is kept for the dashboard's preview.
    const { rows } = await fx.pool().query('SELECT id, author_verified, author_followers, is_quote, has_links FROM x_posts WHERE id = ANY($1) ORDER BY id', [[big.id, quotedChart.id]]);
    expect(rows).toEqual([
      { id: big.id, author_verified: true, author_followers: 50_000, is_quote: false, has_links: false },
      { id: quotedChart.id, author_verified: false, author_followers: 12, is_quote: true, has_links: false },
    ]);
  });

  it('filters an account track\'s posts too, and reads the whole text of a long post', async () => {
    const user = await fx.account();
    await fx.accountTrack(user, 'longform', { filters: filters({ keywords_all: ['conclusion'] }) });
    const long = fx.sim.state.injectPost({ author: 'longform', text: `${'word '.repeat(70)}and in conclusion` });
    fx.sim.state.injectPost({ author: 'longform', text: 'no verdict here' });
    await tick();
    expect(await postIds(user)).toEqual([long.id]);
  });

  it('narrows the query with the operators every tracker of the source asks for, and only those', async () => {
    const [first, second, third] = [await fx.account(), await fx.account(), await fx.account()];
    await fx.track(first, 'chalk2', { filters: filters({ has_media: true, exclude_quotes: true, keywords_any: ['art'] }) });
    await fx.track(second, 'Chalk2', { filters: filters({ has_media: true, exclude_quotes: true, has_links: true }) });
    fx.sim.state.injectPost({ author: 'ivo', text: '#chalk2 art, no picture' });
    const art = fx.sim.state.injectPost({ author: 'ivo', text: '#chalk2 art', media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/e.jpg', width: 8, height: 6 }] });
    await tick();
    expect(clauseOf('chalk2')).toBe('#chalk2 has:media -is:quote');
    expect(await postIds(first)).toEqual([art.id]);
    expect(await postIds(second)).toEqual([]);

    await fx.track(third, 'chalk2', { filters: filters({ has_media: true, verified_only: true }) });
    const plain = fx.sim.state.injectPost({ author: 'ivo', text: '#chalk2 art again' });
    await tick();
    expect(clauseOf('chalk2')).toBe('#chalk2 has:media');
    await fx.pool().query('UPDATE tracks SET filters = NULL WHERE user_id = $1', [third]);
    await tick();
    expect(clauseOf('chalk2')).toBe('#chalk2');
    expect(await postIds(third)).toEqual([plain.id]);
  });

  it('reads a span again without its operators when a tracker that does not want them arrives mid-scan', async () => {
    const early = await fx.account();
    await fx.track(early, 'marl2', { filters: filters({ has_media: true }) });
    await tick();
    const cursor = async () => (await fx.pool().query<{ since_id: string | null; query_operators: string[] }>("SELECT since_id, query_operators FROM source_cursors WHERE source_key = 'tag:marl2'")).rows[0];
    const narrowed = await cursor();
    expect(narrowed?.query_operators).toEqual(['has:media']);

    // The answer is held while a tracker without filters arrives and two posts are published, the plain one first.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 1500 });
    const scan = tick();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = await fx.account();
    await fx.track(late, 'marl2', { createdAt: new Date() });
    const plain = fx.sim.state.injectPost({ author: 'ivo', text: '#marl2 plain' });
    const photo = fx.sim.state.injectPost({ author: 'ivo', text: '#marl2 photo', media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/f.jpg', width: 8, height: 6 }] });
    await scan;
    expect(await postIds(early)).toEqual([photo.id]);
    // The query was narrowed for trackers the late one is not among: the cursor stays where it was.
    expect((await cursor())?.since_id).toBe(narrowed?.since_id);

    await tick();
    expect(clauseOf('marl2')).toBe('#marl2');
    expect(await postIds(late)).toEqual([plain.id, photo.id]);
    expect(await postIds(early)).toEqual([photo.id]);
    expect(BigInt((await cursor())?.since_id ?? 0)).toBeGreaterThanOrEqual(BigInt(photo.id));
  });

  it('applies a PATCHed filter from the next scan on', async () => {
    const user = await fx.account();
    const track = await fx.track(user, 'tundra', { filters: filters({ has_links: true }) });
    fx.sim.state.injectPost({ author: 'ivo', text: 'plain #tundra' });
    const linked = fx.sim.state.injectPost({ author: 'ivo', text: '#tundra read', links: ['https://example.com/t'] });
    await tick();
    expect(await postIds(user)).toEqual([linked.id]);

    await fx.pool().query('UPDATE tracks SET filters = NULL WHERE id = $1', [track]);
    const plain = fx.sim.state.injectPost({ author: 'ivo', text: 'plain #tundra again' });
    await tick();
    expect(await postIds(user)).toEqual([linked.id, plain.id]);
  });
});
