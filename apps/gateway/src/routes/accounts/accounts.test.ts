import { request, useGateway } from '../../test-support/gateway-harness';

describe('account tracks', () => {
  const gw = useGateway();

  it('creates an account track with the default options and answers 201 with every field', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'Alice_01' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^acc_[A-Za-z0-9_-]+$/),
      username: 'Alice_01',
      exclude_replies: true,
      include_mentions: false,
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
    const list = await request(gw.app).get('/v1/accounts').set(auth).expect(200);
    expect(list.body).toEqual({ data: [res.body] });
  });

  it('lists each source’s scan health as the scanner records it: last_scanned_at, last_post_at and scan_error', async () => {
    const { auth } = await gw.account();
    const created = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'alice' }).expect(201);
    await gw.env.database.db.pool.query(
      `UPDATE account_tracks SET last_scanned_at = '2026-11-22T01:24:59.123Z', last_post_at = '2026-11-22T03:00:00+02:00', scan_error = 'X answered 503' WHERE id = $1`,
      [created.body.id],
    );
    const list = await request(gw.app).get('/v1/accounts').set(auth).expect(200);
    expect(list.body.data).toEqual([
      { ...created.body, last_scanned_at: '2026-11-22T01:24:59.123Z', last_post_at: '2026-11-22T01:00:00.000Z', scan_error: 'X answered 503' },
    ]);
  });

  it.each([
    [{ username: '@alice' }],
    [{ username: '' }],
    [{ username: 'a'.repeat(16) }],
    [{ username: 'al-ice' }],
    [{ username: 'élodie' }],
    [{ username: 7 }],
    [{ username: 'alice', exclude_replies: 1 }],
    [{ username: 'alice', lang: 'en' }],
    [{}],
  ])('answers 400 invalid_request to %j and creates nothing', async (body) => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/accounts').set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect((await request(gw.app).get('/v1/accounts').set(auth)).body.data).toEqual([]);
  });

  it('accepts a 15-character username', async () => {
    const { auth } = await gw.account();
    await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'a'.repeat(15) }).expect(201);
  });

  it('answers 409 already_exists for the same username in another case', async () => {
    const { auth } = await gw.account();
    await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'alice' }).expect(201);
    const res = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'ALICE' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_exists');
  });

  it('lets two customers track the same username', async () => {
    const a = await gw.account();
    const b = await gw.account();
    await request(gw.app).post('/v1/accounts').set(a.auth).send({ username: 'alice' }).expect(201);
    await request(gw.app).post('/v1/accounts').set(b.auth).send({ username: 'alice' }).expect(201);
  });

  it('answers 403 plan_limit_reached when a 3rd account is added on Starter, and exactly 2 exist after 20 racing creates', async () => {
    const { auth } = await gw.account('starter');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => request(gw.app).post('/v1/accounts').set(auth).send({ username: `user${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(18);
    expect(refused[0]?.body.error.code).toBe('plan_limit_reached');
    expect((await request(gw.app).get('/v1/accounts').set(auth)).body.data).toHaveLength(2);
  });

  it('answers 403 plan_limit_reached when engagement would pass the limit shared with tracks', async () => {
    const { accountId, auth } = await gw.account('pro');
    await gw.env.database.db.prisma.user.update({ where: { id: accountId }, data: { engagementLimit: 1 } });
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', track_engagement: true }).expect(201);
    const res = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'bob', track_engagement: true });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('plan_limit_reached');
    const created = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'bob' }).expect(201);
    const patch = await request(gw.app).patch(`/v1/accounts/${created.body.id}`).set(auth).send({ track_engagement: true });
    expect(patch.status).toBe(403);
    expect((await request(gw.app).get('/v1/accounts').set(auth)).body.data[0].track_engagement).toBe(false);
  });

  it('patches the engagement flags only and answers the whole account track', async () => {
    const { auth } = await gw.account();
    const created = await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'carol' }).expect(201);
    const res = await request(gw.app).patch(`/v1/accounts/${created.body.id}`).set(auth).send({ track_engagement: true, track_reposts: false }).expect(200);
    expect(res.body).toEqual({ ...created.body, track_engagement: true, track_reposts: false });
    const bad = await request(gw.app).patch(`/v1/accounts/${created.body.id}`).set(auth).send({ exclude_replies: false });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('exclude_replies');
  });

  it("deletes an account track, and answers 404 for an unknown or another customer's id", async () => {
    const owner = await gw.account();
    const other = await gw.account();
    const created = await request(gw.app).post('/v1/accounts').set(owner.auth).send({ username: 'dave' }).expect(201);
    expect((await request(gw.app).delete(`/v1/accounts/${created.body.id}`).set(other.auth)).status).toBe(404);
    expect((await request(gw.app).patch(`/v1/accounts/${created.body.id}`).set(other.auth).send({ track_likes: false })).status).toBe(404);
    expect((await request(gw.app).get('/v1/accounts').set(other.auth)).body.data).toEqual([]);
    const res = await request(gw.app).delete(`/v1/accounts/${created.body.id}`).set(owner.auth).expect(200);
    expect(res.body).toEqual({ id: created.body.id, deleted: true });
    expect((await request(gw.app).delete('/v1/accounts/acc_nope').set(owner.auth)).status).toBe(404);
  });
});
