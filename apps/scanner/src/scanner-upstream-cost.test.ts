import { useScannerFixture } from './test-support/scanner-fixture';

interface Share {
  user_id: string;
  source: string;
  reads: number;
  requests: number;
}

// Each test uses its own tags; totals are compared over the whole file, whose database and simulator are its own.
describe('upstream cost per source, metered by the scanner against the X simulator', () => {
  const fx = useScannerFixture();

  async function tick() {
    await fx.makeDue();
    return fx.scanner().runTick();
  }

  /** What X served the scanner's searches so far: requests (any answer), requests answered 200, posts billed. */
  function served() {
    const counters = fx.sim.state.requestLog.counters().endpoints.search_recent;
    return { requests: counters?.requests ?? 0, answered: counters?.statuses['200'] ?? 0, reads: counters?.postsServed ?? 0 };
  }

  /** Every account's metered totals: by source, and upstream_posts_read. */
  async function metered() {
    const { rows } = await fx.pool().query<{ reads: string; requests: string; posts_read: string }>(
      `SELECT (SELECT COALESCE(sum(reads), 0) FROM upstream_usage_by_source)::text AS reads,
              (SELECT COALESCE(sum(requests), 0) FROM upstream_usage_by_source)::text AS requests,
              (SELECT COALESCE(sum(upstream_posts_read), 0) FROM usage_periods)::text AS posts_read`,
    );
    const row = rows[0];
    return { reads: Number(row?.reads), requests: Number(row?.requests), postsRead: Number(row?.posts_read) };
  }

  async function shares(users: string[]): Promise<Share[]> {
    const { rows } = await fx.pool().query<{ user_id: string; source: string; reads: string; requests: string }>(
      `SELECT s.user_id, s.source, s.reads::text, s.requests::text
         FROM upstream_usage_by_source s JOIN users u ON u.id = s.user_id AND s.period_start = u.current_period_start
        WHERE s.user_id = ANY($1::text[]) ORDER BY array_position($1::text[], s.user_id), s.source`,
      [users],
    );
    return rows.map((row) => ({ ...row, reads: Number(row.reads), requests: Number(row.requests) }));
  }

  /** Each account's upstream_posts_read is the sum of its per-source reads, to the millionth. */
  async function expectAccountsAgree(users: string[]): Promise<void> {
    for (const user of users) {
      const sum = (await shares([user])).reduce((total, share) => total + Math.round(share.reads * 1e6), 0);
      expect(Math.round(((await fx.usage(user))?.upstream_posts_read ?? 0) * 1e6)).toBe(sum);
    }
  }

  it('splits a query\'s reads and answered requests (not a 503 retried) across its sources, then across their accounts, adding up exactly', async () => {
    const [a, b, c] = [await fx.account(), await fx.account({ plan: 'starter' }), await fx.account()];
    await fx.track(a, 'copper');
    await fx.track(b, 'Copper', { lang: 'en' });
    await fx.track(c, 'tin');
    for (let i = 0; i < 5; i += 1) fx.sim.state.injectPost({ author: 'ore', text: `#copper ${i}`, lang: 'en' });
    for (let i = 0; i < 2; i += 1) fx.sim.state.injectPost({ author: 'ore', text: `#tin ${i}` });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unavailable', count: 1 });

    await tick();
    const x = served();
    // One packed query for both tags, retried once after the 503: two calls, one answer, seven posts.
    expect(x).toEqual({ requests: 2, answered: 1, reads: 7 });
    // Per source 7/2 reads and 1/2 request; #copper's share split between a and b, #tin's all c's.
    const [first, second] = [a, b].sort();
    expect(await shares([first as string, second as string, c])).toEqual([
      { user_id: first, source: '#copper', reads: 1.75, requests: 0.25 },
      { user_id: second, source: '#copper', reads: 1.75, requests: 0.25 },
      { user_id: c, source: '#tin', reads: 3.5, requests: 0.5 },
    ]);
    expect(await metered()).toEqual({ reads: 7, requests: 1, postsRead: 7 });
    await expectAccountsAgree([a, b, c]);
  });

  it('hands out the leftover millionths so that an uneven split still adds up exactly', async () => {
    const users = [await fx.account(), await fx.account(), await fx.account()];
    for (const user of users) await fx.track(user, 'zinc');
    const own = await fx.account();
    await fx.track(own, 'lead');
    await fx.accountTrack(own, 'smelter');
    fx.sim.state.createUser({ username: 'smelter' });
    fx.sim.state.injectPost({ author: 'smelter', text: 'hot #zinc' });

    await tick();
    const x = served();
    // The pack's reads over its sources (this file's earlier tags too), #zinc's in thirds: never lost or doubled.
    expect(await metered()).toEqual({ reads: x.reads, requests: x.answered, postsRead: x.reads });
    const zinc = (await shares(users)).filter((share) => share.source === '#zinc');
    expect(zinc).toHaveLength(3);
    const millionths = zinc.map((share) => Math.round(share.reads * 1e6));
    expect(Math.max(...millionths) - Math.min(...millionths)).toBeLessThanOrEqual(1);
    expect((await shares([own])).map((share) => share.source)).toEqual(['#lead', '@smelter']);
    await expectAccountsAgree([...users, own]);
  });

  it('counts a store transaction retried after a deadlock once', async () => {
    const user = await fx.account();
    await fx.track(user, 'nickel');
    for (let i = 0; i < 3; i += 1) fx.sim.state.injectPost({ author: 'ore', text: `#nickel ${i}` });
    // The first write of per-source usage fails as a deadlock would: the scanner redoes the whole batch.
    await fx.pool().query(`CREATE SEQUENCE upstream_fail_once;
      CREATE FUNCTION upstream_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('upstream_fail_once') = 1 THEN RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01'; END IF; RETURN NULL; END $$;
      CREATE TRIGGER upstream_fail_once AFTER INSERT ON upstream_usage_by_source FOR EACH STATEMENT EXECUTE FUNCTION upstream_fail_once();`);
    try {
      await tick();
    } finally {
      await fx.pool().query('DROP TRIGGER upstream_fail_once ON upstream_usage_by_source; DROP FUNCTION upstream_fail_once()');
    }
    const { rows } = await fx.pool().query<{ last_value: string }>('SELECT last_value FROM upstream_fail_once');
    expect(Number(rows[0]?.last_value)).toBeGreaterThanOrEqual(2);
    expect(await fx.items(user)).toHaveLength(3);
    const x = served();
    expect(await metered()).toEqual({ reads: x.reads, requests: x.answered, postsRead: x.reads });
  });

  it('meters a query that failed on page 2 and was read again next cycle as X served it: each answered page once, no failed request', async () => {
    const user = await fx.account();
    await fx.track(user, 'cobalt');
    for (let i = 0; i < 150; i += 1) fx.sim.state.injectPost({ author: 'ore', text: `#cobalt ${i}` });
    // Page 1 is served (a zero-delay fault only marks it), then page 2 and both its retries answer 503.
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'slow', count: 1, delay_ms: 0 });
    fx.sim.state.injectFault({ endpoint: 'search_recent', kind: 'unavailable', count: 3 });
    const before = served();
    await tick();
    expect(await fx.items(user)).toHaveLength(100);
    await tick();
    expect(await fx.items(user)).toHaveLength(150);

    const x = served();
    // Page 1 twice (the second cycle starts again from the unmoved cursor), page 2 once: X served 250 reads
    // over 3 answered requests, and 3 requests answered 503 that it did not bill.
    expect(x.reads - before.reads).toBeGreaterThanOrEqual(250);
    expect(x.requests - x.answered - (before.requests - before.answered)).toBe(3);
    expect(await metered()).toEqual({ reads: x.reads, requests: x.answered, postsRead: x.reads });
    expect(await shares([user])).toEqual([{ user_id: user, source: '#cobalt', reads: expect.any(Number), requests: expect.any(Number) }]);
  });

  it('is counted once when two scanner replicas scan at the same time', async () => {
    const tags = ['argon', 'boron', 'cerium', 'erbium', 'gallium', 'hafnium', 'indium'];
    const users = [await fx.account(), await fx.account(), await fx.account()];
    for (const [index, user] of users.entries()) {
      for (const tag of tags.filter((_, i) => i % 3 !== index)) await fx.track(user, tag);
    }
    for (let i = 0; i < 40; i += 1) fx.sim.state.injectPost({ author: `m${i % 4}`, text: `#${tags[i % tags.length]} and #${tags[(i * 3 + 1) % tags.length]}` });
    await fx.makeDue();
    const [one, two] = await Promise.all([fx.scanner({ claimBatchSize: 3 }).runTick(), fx.scanner({ claimBatchSize: 3 }).runTick()]);
    expect(one.scanned + two.scanned).toBeGreaterThanOrEqual(tags.length);
    const x = served();
    expect(await metered()).toEqual({ reads: x.reads, requests: x.answered, postsRead: x.reads });
    const sources = new Set((await shares(users)).map((share) => share.source));
    expect([...sources].sort()).toEqual(tags.map((tag) => `#${tag}`).sort());
    await expectAccountsAgree(users);
  });
});
