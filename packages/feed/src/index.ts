export { insertFeedItems } from './insert-feed-items';
export type { NewFeedItem, FeedItemRow } from './insert-feed-items';
