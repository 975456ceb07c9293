import { createClient, type ErrorCode, type FeedItem, type Notice } from './index';

// What the typecheck (`tsc -p tsconfig.json`, which includes this file) proves: calls are typed by path from
// the generated `paths`. Nothing here sends a request.
async function typedCalls(id: string, cursor?: string): Promise<unknown[]> {
  const hw = createClient({ baseUrl: 'http://127.0.0.1:1' });
  const tracks = await hw.get('/v1/tracks');
  const hashtag: string = tracks.data[0]?.hashtag ?? '';
  const created = await hw.post('/v1/tracks', { body: { hashtag: 'btc' } });
  const patched = await hw.patch('/v1/tracks/{id}', { params: { path: { id } }, body: { track_likes: true } });
  const deleted: boolean = (await hw.delete('/v1/me', { headers: { 'X-TOTP-Code': '123456' } })).deleted;
  const signedOut: undefined = await hw.delete('/v1/session');
  const posts = await hw.get('/v1/posts', { params: { query: { limit: 100, cursor } } });
  const first: FeedItem | undefined = posts.data[0];
  for await (const item of hw.pages('/v1/posts', { query: { type: 'hashtag' } })) void (item.detected_at satisfies string);
  for await (const delivery of hw.pages('/v1/notifications/deliveries', { query: { status: 'failed' } })) void (delivery.id satisfies string);
  for await (const notice of hw.pages('/v1/notices', { query: { state: 'open' } })) void (notice satisfies Notice).kind;
  // @ts-expect-error a notice is open or resolved
  void hw.pages('/v1/notices', { query: { state: 'closed' } });
  for await (const post of hw.watch({ since: '2026-11-22T01:24:59.123Z', query: { hashtag: 'btc' } })) void (post.id satisfies string);
  // @ts-expect-error no such path
  await hw.get('/v1/nope');
  // @ts-expect-error the body is required
  await hw.post('/v1/tracks');
  // @ts-expect-error hashtag is a string
  await hw.post('/v1/tracks', { body: { hashtag: 3 } });
  // @ts-expect-error /v1/tracks is not paged
  void hw.pages('/v1/tracks');
  const code: ErrorCode = 'not_found';
  // @ts-expect-error not a code the document lists
  const unknown: ErrorCode = 'no_such_code';
  return [hashtag, created.id, patched.track_likes, deleted, signedOut, first, code, unknown];
}

describe('the client types', () => {
  it('are checked by the typecheck, not at run time', () => {
    expect(typeof typedCalls).toBe('function');
  });
});
