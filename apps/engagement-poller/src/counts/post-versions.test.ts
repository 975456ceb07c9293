import { itemJsonSql } from '@hashwatch/feed';
import { usePollerFixture } from '../test-support/poller-fixture';

const MINUTE = 60_000;

// Posts as X really keeps them: an edit is a new version with its own counts, and a deletion takes the whole chain.
describe('refreshing counts of edited and deleted posts', () => {
  const f = usePollerFixture();
  const pool = () => f.env.database.db.pool;

  beforeEach(() => f.clock.set(new Date()));

  it('counts an edited post\'s engagement over every version, as X attributes each to the version shown at the time', async () => {
    const user = await f.account({ refreshSeconds: 60 });
    const post = f.post();
    const itemId = await f.detect(user, post);
    f.sim.state.addLikes(post.id, { anonymous: 3 });
    f.sim.state.addRetweets(post.id, { anonymous: 1 });
    const edit = f.sim.state.editPost(post.id, { text: 'gm #btc, edited' });
    f.sim.state.addLikes(edit.id, { anonymous: 4 });
    // As the scanner records an edit: the chain on the post's row.
    await pool().query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at, version_ids) VALUES ($1, '1', $2, 'A', 'gm', now(), $3)`,
      [post.id, post.author, [post.id, edit.id]],
    );
    f.sim.state.requestLog.clear();
    await f.poller().runCycle();
    expect(await f.item(itemId)).toMatchObject({ like_count: 7, retweet_count: 1 });
    const lookups = f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' });
    expect(lookups).toHaveLength(1);
    expect(String(lookups[0]?.query.ids).split(',').sort()).toEqual([post.id, edit.id].sort());
  });

  it('erases a post deleted on X from every item showing it (text, author name, links, media, quote), keeping its id and times', async () => {
    const first = await f.account({ refreshSeconds: 60 });
    const second = await f.account({ refreshSeconds: 60 });
    const post = f.post();
    const itemIds = [await f.detect(first, post), await f.detect(second, post)];
    await pool().query(
      `INSERT INTO x_posts (id, author_id, author_username, author_name, text, posted_at) VALUES ($1, '1', $2, 'Author', 'gm #btc', now())`,
      [post.id, post.author],
    );
    await pool().query(
      `UPDATE feed_items SET urls = '[{"url":"https://t.co/a","expanded_url":"https://example.com","display_url":"example.com"}]',
              media = '[{"type":"photo","url":"https://pbs.twimg.com/media/a.jpg","preview_image_url":null,"width":1,"height":1,"alt_text":null}]',
              quoted = '{"id":"1","author":"@q","author_name":"Q","text":"quoted","url":"https://x.com/q/status/1"}'
        WHERE id = ANY($1)`,
      [itemIds],
    );
    const poller = f.poller();
    await poller.runCycle();
    const before = await f.item(itemIds[0] as string);
    f.sim.state.deletePost(post.id);
    f.clock.advance(MINUTE);
    const cycle = await poller.runCycle();
    expect(cycle.counts.deleted).toBe(1);

    for (const id of itemIds) {
      const { rows } = await pool().query('SELECT text, author_name, urls, media, quoted, deleted, posted_at, detected_at, author, url FROM feed_items WHERE id = $1', [id]);
      expect(rows[0]).toMatchObject({ text: '', author_name: '', urls: null, media: null, quoted: null, deleted: true, author: `@${post.author}` });
    }
    expect((await f.item(itemIds[0] as string)).detected_at).toEqual(before.detected_at);
    const { rows: posts } = await pool().query('SELECT text, author_name, deleted_at FROM x_posts WHERE id = $1', [post.id]);
    expect(posts).toEqual([{ text: '', author_name: '', deleted_at: f.clock.now() }]);
    const { rows: heads } = await pool().query<{ item_head: string }>(`SELECT ${itemJsonSql('f')} AS item_head FROM feed_items f WHERE id = $1`, [itemIds[0]]);
    expect(JSON.parse(`${heads[0]?.item_head}}`)).toMatchObject({ text: '', author_name: '', urls: [], media: [], quoted: null, deleted: true });

    f.sim.state.requestLog.clear();
    f.clock.advance(MINUTE);
    await poller.runCycle();
    expect(f.sim.state.requestLog.entries({ endpoint: 'posts_lookup' }).some((entry) => String(entry.query.ids).split(',').includes(post.id))).toBe(false);
  });
});
