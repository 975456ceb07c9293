import { alertFor } from './alert-message';
import type { ClaimedDelivery } from './claimed-delivery';

const delivery = (changes: Partial<ClaimedDelivery>): ClaimedDelivery => ({
  id: 'dlv_1', message_id: 'post_1', attempts: 0, feed_item_id: 'post_1', late: false, type: 'account', hashtag: null, account: 'Acme',
  matched_by: 'author', sources: ['@acme'], author: '@acme', author_name: 'Acme', text: 'we shipped', url: 'https://x.com/acme/status/1',
  lang: 'en', urls: null, media: null, quoted: null, edited_at: null, deleted: false, posted_at: new Date('2026-11-29T10:00:00Z'),
  detected_at: new Date('2026-11-29T10:00:01Z'), parent_id: null, kind: null, parent_url: null, parent_text: null, ...changes,
});
const sent = (claimed: ClaimedDelivery, source?: string) => alertFor(claimed, source);

// The json payload's matched_by is this field when `account` is set (packages/channels json.test.ts).
describe('matched_by of an alert, for the source it was routed for', () => {
  it('is the item\'s own answer for its account, author when older items kept none', () => {
    expect(sent(delivery({}))).toMatchObject({ account: 'Acme', matched_by: 'author' });
    expect(sent(delivery({ matched_by: 'mention', author: '@fan' }))).toMatchObject({ account: 'Acme', matched_by: 'mention' });
    expect(sent(delivery({ matched_by: null }))).toMatchObject({ matched_by: 'author' });
  });

  it('says how another account source matched: a hashtag item or a second account that the post mentions', () => {
    const tagged = delivery({ type: 'hashtag', hashtag: 'btc', account: null, matched_by: null, sources: ['#btc', '@acme'], author: '@fan' });
    expect(sent(tagged, '#btc')).toMatchObject({ hashtag: 'btc', account: '' });
    expect(sent(tagged, '#btc').matched_by).toBeUndefined();
    expect(sent(tagged, '@acme')).toMatchObject({ hashtag: '', account: 'acme', matched_by: 'mention' });
    const both = delivery({ sources: ['@acme', '@bob'], matched_by: 'author' });
    expect(sent(both, '@bob')).toMatchObject({ account: 'bob', matched_by: 'mention' });
    expect(sent(delivery({ type: 'hashtag', hashtag: 'btc', account: null, matched_by: null, sources: ['#btc', '@acme'] }), '@acme')).toMatchObject({ matched_by: 'author' });
  });

  it('is null on engagement alerts', () => {
    const like = delivery({ type: 'engagement', kind: 'like', parent_id: 'post_0', matched_by: null, author: '@fan' });
    expect(sent(like, '@acme').matched_by).toBeUndefined();
  });
});
