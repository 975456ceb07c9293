import { request, useGateway } from '../../test-support/gateway-harness';

const NONE = { keywords_any: [], keywords_all: [], keywords_none: [], has_media: false, has_links: false, exclude_quotes: false, verified_only: false, min_followers: 0 };

describe.each([
  ['tracks', { hashtag: 'btc' }],
  ['accounts', { username: 'alice' }],
])('filters on /v1/%s', (path, source) => {
  const gw = useGateway();

  it('creates a source with filters, lists them with every field, and answers none when left out', async () => {
    const { auth } = await gw.account('pro');
    const filters = { keywords_any: ['ETF', '"all time high"', 'etf'], keywords_none: ['giveaway'], has_media: true, min_followers: 1000 };
    const created = await request(gw.app).post(`/v1/${path}`).set(auth).send({ ...source, filters }).expect(201);
    expect(created.body.filters).toEqual({ ...NONE, keywords_any: ['ETF', '"all time high"'], keywords_none: ['giveaway'], has_media: true, min_followers: 1000 });
    const list = await request(gw.app).get(`/v1/${path}`).set(auth).expect(200);
    expect(list.body.data).toEqual([created.body]);

    const { auth: other } = await gw.account('pro');
    const plain = await request(gw.app).post(`/v1/${path}`).set(other).send({ ...source, filters: null }).expect(201);
    expect(plain.body.filters).toEqual(NONE);
    const { rows } = await gw.env.database.db.pool.query(`SELECT filters FROM ${path === 'tracks' ? 'tracks' : 'account_tracks'} WHERE id = $1`, [plain.body.id]);
    expect(rows[0].filters).toBeNull();
  });

  it('replaces the filters on PATCH, keeps them on a PATCH without them, and removes them with null', async () => {
    const { auth } = await gw.account('pro');
    const created = await request(gw.app).post(`/v1/${path}`).set(auth).send({ ...source, filters: { verified_only: true } }).expect(201);
    const replaced = await request(gw.app).patch(`/v1/${path}/${created.body.id}`).set(auth).send({ filters: { keywords_all: ['launch'], exclude_quotes: true } }).expect(200);
    expect(replaced.body.filters).toEqual({ ...NONE, keywords_all: ['launch'], exclude_quotes: true });
    const flagsOnly = await request(gw.app).patch(`/v1/${path}/${created.body.id}`).set(auth).send({ track_likes: false }).expect(200);
    expect(flagsOnly.body).toMatchObject({ track_likes: false, filters: replaced.body.filters });
    const removed = await request(gw.app).patch(`/v1/${path}/${created.body.id}`).set(auth).send({ filters: null }).expect(200);
    expect(removed.body.filters).toEqual(NONE);
  });

  it.each([
    [{ keywords_any: Array.from({ length: 21 }, (_, i) => `w${i}`) }, 'filters.keywords_any'],
    [{ keywords_all: [`"${'x'.repeat(61)}"`] }, 'filters.keywords_all.0'],
    [{ keywords_none: [] }, 'filters.keywords_none'],
    [{ keywords_any: ['half"quoted'] }, 'filters.keywords_any.0'],
    [{ min_followers: -1 }, 'filters.min_followers'],
    [{ has_links: 'yes' }, 'filters.has_links'],
    [{ keywords_all: ['btc'], keywords_none: ['BTC'] }, 'filters.keywords_none'],
    [{ shade: 'blue' }, 'shade'],
    [['btc'], 'filters'],
  ])('answers 400 naming %j\'s field (%s) on create and PATCH, and changes nothing', async (filters, field) => {
    const { auth } = await gw.account('pro');
    const refused = await request(gw.app).post(`/v1/${path}`).set(auth).send({ ...source, filters }).expect(400);
    expect(refused.body.error.code).toBe('invalid_request');
    expect(refused.body.error.message).toContain(field);
    expect((await request(gw.app).get(`/v1/${path}`).set(auth).expect(200)).body.data).toEqual([]);

    const created = await request(gw.app).post(`/v1/${path}`).set(auth).send({ ...source, filters: { has_media: true } }).expect(201);
    const patched = await request(gw.app).patch(`/v1/${path}/${created.body.id}`).set(auth).send({ track_likes: false, filters }).expect(400);
    expect(patched.body.error.message).toContain(field);
    expect((await request(gw.app).get(`/v1/${path}`).set(auth).expect(200)).body.data).toEqual([created.body]);
  });
});
