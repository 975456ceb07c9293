import type { AlertPost } from './alert';

/**
 * The alert `POST /notifications/test` sends: a hashtag post on #hashwatch, so a custom template shows
 * every placeholder filled. `test: true` labels the default card and gives the json format type `test`.
 */
export function buildTestAlert(options: { now: Date }): AlertPost {
  const at = options.now.toISOString();
  return {
    type: 'hashtag',
    source: '#hashwatch',
    hashtag: 'hashwatch',
    account: '',
    author: '@hashwatch',
    author_name: 'Hashwatch',
    text: 'This is a test alert from Hashwatch. If you can read it, this channel is set up correctly.',
    url: 'https://x.com/search?q=%23hashwatch',
    posted_at: at,
    detected_at: at,
    test: true,
  };
}
