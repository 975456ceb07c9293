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
