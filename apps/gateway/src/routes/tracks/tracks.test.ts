import { request, useGateway } from '../../test-support/gateway-harness';

describe('tracks', () => {
  const gw = useGateway();

  it('creates a track with the default options and answers 201 with every field', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'BTC' });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^trk_[A-Za-z0-9_-]+$/),
      hashtag: 'BTC',
      lang: null,
      exclude_retweets: true,
      filters: { keywords_any: [], keywords_all: [], keywords_none: [], has_media: false, has_links: false, exclude_quotes: false, verified_only: false, min_followers: 0 },
      track_engagement: false,
      track_likes: true,
      track_reposts: true,
      track_comments: true,
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_scanned_at: null,
      last_post_at: null,
      scan_error: null,
    });
  });

  it('lists tracks oldest first with every field', async () => {
    const { auth } = await gw.account('pro');
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'eth', lang: 'en', exclude_retweets: false }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'sol', track_engagement: true, track_likes: false }).expect(201);
    const res = await request(gw.app).get('/v1/tracks').set(auth).expect(200);
    expect(res.body.data.map((t: { hashtag: string }) => t.hashtag)).toEqual(['eth', 'sol']);
    expect(res.body.data[0]).toMatchObject({ lang: 'en', exclude_retweets: false });
    expect(res.body.data[1]).toMatchObject({ track_engagement: true, track_likes: false, track_reposts: true });
  });

  it('accepts Unicode letters in a hashtag', async () => {
    const { auth } = await gw.account();
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'café_2026' }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'ビットコイン' }).expect(201);
  });

  it('lists each source’s scan health as the scanner records it: last_scanned_at, last_post_at and scan_error', async () => {
    const { auth } = await gw.account();
    const created = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    await gw.env.database.db.pool.query(
      `UPDATE tracks SET last_scanned_at = '2026-11-22T01:24:59.123Z', last_post_at = '2026-11-22T03:00:00+02:00', scan_error = 'X answered 503' WHERE id = $1`,
      [created.body.id],
    );
    const list = await request(gw.app).get('/v1/tracks').set(auth).expect(200);
    expect(list.body.data).toEqual([
      { ...created.body, last_scanned_at: '2026-11-22T01:24:59.123Z', last_post_at: '2026-11-22T01:00:00.000Z', scan_error: 'X answered 503' },
    ]);
  });

  it.each([
    [{ hashtag: '#btc' }, 'hashtag'],
    [{ hashtag: '' }, 'hashtag'],
    [{ hashtag: 'a'.repeat(101) }, 'hashtag'],
    [{ hashtag: 'two words' }, 'hashtag'],
    [{ hashtag: 42 }, 'hashtag'],
    [{}, 'hashtag'],
    [{ hashtag: 'btc', lang: 'EN' }, 'lang'],
    [{ hashtag: 'btc', lang: 'english' }, 'lang'],
    [{ hashtag: 'btc', exclude_retweets: 'yes' }, 'exclude_retweets'],
    [{ hashtag: 'btc', colour: 'red' }, 'colour'],
    [[{ hashtag: 'btc' }], 'body'],
  ])('answers 400 invalid_request naming the field for %j and creates nothing', async (body, field) => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/tracks').set(auth).send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toContain(field);
    const list = await request(gw.app).get('/v1/tracks').set(auth);
    expect(list.body.data).toEqual([]);
  });

  it('accepts lang null as no filter', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', lang: null }).expect(201);
    expect(res.body.lang).toBeNull();
  });

  it('answers 409 already_exists for the same hashtag and lang in another case, and allows another lang', async () => {
    const { auth } = await gw.account();
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const dup = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'BTC' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('already_exists');
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', lang: 'en' }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'Btc', lang: 'en' }).expect(409);
  });

  it('answers 403 plan_limit_reached when a 4th hashtag is added on Starter, and creates nothing', async () => {
    const { auth } = await gw.account('starter');
    for (const tag of ['a', 'b', 'c']) await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: tag }).expect(201);
    const res = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'd' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('plan_limit_reached');
    const list = await request(gw.app).get('/v1/tracks').set(auth);
    expect(list.body.data).toHaveLength(3);
  });

  it('creates exactly the limit when 20 creates race at the limit', async () => {
    const { auth } = await gw.account('starter');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: `race${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(17);
    const list = await request(gw.app).get('/v1/tracks').set(auth);
    expect(list.body.data).toHaveLength(3);
  });

  it('counts tracks and accounts together against the engagement limit under concurrency', async () => {
    const { accountId, auth } = await gw.account('pro');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { engagementLimit: 2 } });
    await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'alice', track_engagement: true }).expect(201);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: `eng${i}`, track_engagement: true })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error.code === 'plan_limit_reached')).toBe(true);
  });

  it('patches only the engagement flags and answers the whole track', async () => {
    const { auth } = await gw.account();
    const created = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const res = await request(gw.app).patch(`/v1/tracks/${created.body.id}`).set(auth).send({ track_engagement: true, track_comments: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, track_engagement: true, track_comments: false });
    const empty = await request(gw.app).patch(`/v1/tracks/${created.body.id}`).set(auth).send({});
    expect(empty.body).toEqual(res.body);
  });

  it.each([{ hashtag: 'other' }, { lang: 'en' }, { exclude_retweets: false }, { track_likes: 'no' }])(
    'answers 400 to a PATCH holding %j and changes nothing',
    async (patch) => {
      const { auth } = await gw.account();
      const created = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
      const res = await request(gw.app).patch(`/v1/tracks/${created.body.id}`).set(auth).send(patch);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      const list = await request(gw.app).get('/v1/tracks').set(auth);
      expect(list.body.data[0]).toEqual(created.body);
    },
  );

  it('turns engagement on for exactly the limit when 20 PATCHes on tracks and accounts race', async () => {
    const { accountId, auth } = await gw.account('business');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { engagementLimit: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      ids.push((await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: `race${i}` }).expect(201)).body.id);
      ids.push((await request(gw.app).post('/v1/accounts').set(auth).send({ username: `racer${i}` }).expect(201)).body.id);
    }
    const results = await Promise.all(
      ids.map((id) => request(gw.app).patch(`/v1/${id.startsWith('trk_') ? 'tracks' : 'accounts'}/${id}`).set(auth).send({ track_engagement: true })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(17);
    expect(refused.every((r) => r.status === 403 && r.body.error.code === 'plan_limit_reached')).toBe(true);
    const tracks = (await request(gw.app).get('/v1/tracks').set(auth)).body.data as { track_engagement: boolean }[];
    const accounts = (await request(gw.app).get('/v1/accounts').set(auth)).body.data as { track_engagement: boolean }[];
    expect([...tracks, ...accounts].filter((source) => source.track_engagement)).toHaveLength(3);
  });

  it('answers 403 plan_limit_reached when a PATCH would turn engagement on past the limit', async () => {
    const { accountId, auth } = await gw.account();
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { engagementLimit: 1 } });
    const a = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'a', track_engagement: true }).expect(201);
    const b = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'b' }).expect(201);
    const res = await request(gw.app).patch(`/v1/tracks/${b.body.id}`).set(auth).send({ track_engagement: true });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('plan_limit_reached');
    // Re-asserting an engagement flag already on does not count twice.
    await request(gw.app).patch(`/v1/tracks/${a.body.id}`).set(auth).send({ track_engagement: true }).expect(200);
    await request(gw.app).patch(`/v1/tracks/${a.body.id}`).set(auth).send({ track_engagement: false }).expect(200);
    await request(gw.app).patch(`/v1/tracks/${b.body.id}`).set(auth).send({ track_engagement: true }).expect(200);
  });

  it('deletes a track and answers {id, deleted: true}, then 404', async () => {
    const { auth } = await gw.account();
    const created = await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const res = await request(gw.app).delete(`/v1/tracks/${created.body.id}`).set(auth).expect(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    const again = await request(gw.app).delete(`/v1/tracks/${created.body.id}`).set(auth);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it("answers 404 for another account's track on PATCH and DELETE, and never shows it", async () => {
    const owner = await gw.account();
    const other = await gw.account();
    const created = await request(gw.app).post('/v1/tracks').set(owner.auth).send({ hashtag: 'secret' }).expect(201);
    const patch = await request(gw.app).patch(`/v1/tracks/${created.body.id}`).set(other.auth).send({ track_likes: false });
    expect(patch.status).toBe(404);
    expect(patch.body.error.message).not.toContain('secret');
    expect((await request(gw.app).delete(`/v1/tracks/${created.body.id}`).set(other.auth)).status).toBe(404);
    expect((await request(gw.app).get('/v1/tracks').set(other.auth)).body.data).toEqual([]);
    expect((await request(gw.app).get('/v1/tracks').set(owner.auth)).body.data[0]).toEqual(created.body);
  });
});
