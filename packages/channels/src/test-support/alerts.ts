import type { AlertPost, ChannelConfigOf, ChannelKind, RequestMeta } from '../index';

export const hashtagAlert: AlertPost = {
  id: 'post_abc',
  type: 'hashtag',
  source: '#btc',
  hashtag: 'btc',
  account: '',
  author: '@alice',
  author_name: 'Alice Example',
  text: 'Bitcoin just crossed 100k #btc',
  url: 'https://x.com/alice/status/1890000000000000001',
  posted_at: '2026-11-22T01:24:00.000Z',
  detected_at: '2026-11-22T01:24:59.123Z',
};

export const accountAlert: AlertPost = {
  ...hashtagAlert,
  id: 'post_def',
  type: 'account',
  source: '@alice',
  hashtag: '',
  account: 'alice',
  text: 'Shipping a new release today',
};

export const likeAlert: AlertPost = {
  id: 'post_ghi',
  type: 'engagement',
  kind: 'like',
  source: '#btc',
  hashtag: 'btc',
  account: '',
  author: '@bob',
  author_name: 'Bob',
  text: 'liked this post',
  url: 'https://x.com/alice/status/1890000000000000001',
  posted_at: null,
  detected_at: '2026-11-22T01:30:00.000Z',
  parent_id: 'post_abc',
  parent_url: 'https://x.com/alice/status/1890000000000000001',
  parent_text: 'Bitcoin just crossed 100k #btc',
};

export const meta: RequestMeta = { messageId: 'dlv_123', timestamp: new Date('2026-11-22T01:25:00.000Z') };

/** A channel of one kind, with the default template and, on Discord and Slack, the default bot name. */
export function channel<K extends ChannelKind>(config: { kind: K } & Partial<ChannelConfigOf<K>>): ChannelConfigOf<K> {
  const defaults = config.kind === 'discord' || config.kind === 'slack' ? { botName: 'Hashwatch', template: '' } : { template: '' };
  // Tests may leave out what the adapter must then refuse (a url, a token): the value is taken as given.
  return { ...defaults, ...config } as ChannelConfigOf<K>;
}

/** Every template placeholder renderTemplate fills, plus one that is not a placeholder. */
export const EVERY_PLACEHOLDER = '{source}|{author}|{name}|{text}|{url}|{hashtag}|{account}|{unknown}';

export const RICH_POST_URL = 'https://x.com/alice/status/1890000000000000002';

/**
 * A post with everything a post carries (CONTRACT 9): text with characters every platform treats differently and
 * an "&amp;" its author really typed, a link, a trailing media link, a photo, a quoted post, an edit.
 */
export const richAlert: AlertPost = {
  ...hashtagAlert,
  id: 'post_rich',
  text: 'Fish & Chips <3 > 2, I typed &amp; myself. Menu: https://t.co/Menu123 https://t.co/Pic4567',
  url: RICH_POST_URL,
  urls: [
    { url: 'https://t.co/Menu123', expanded_url: 'https://example.com/menu_(2026)?a=1&b=2', display_url: 'example.com/menu_(2026)?a=1…' },
    { url: 'https://t.co/Pic4567', expanded_url: `${RICH_POST_URL}/photo/1`, display_url: 'pic.x.com/Pic4567' },
  ],
  media: [
    { type: 'photo', url: 'https://pbs.twimg.com/media/Fish.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'Fish & chips on a plate' },
  ],
  quoted: {
    id: '1889999999999999999',
    author: '@bob',
    author_name: 'Bob <Chef>',
    text: 'Chips > fries & that is final',
    url: 'https://x.com/bob/status/1889999999999999999',
  },
  lang: 'en',
  edited_at: '2026-11-22T01:26:00.000Z',
  deleted: false,
};
