export { insertFeedItems } from './insert-feed-items';
export type { NewFeedItem, FeedItemRow } from './insert-feed-items';
export { CREATE_USAGE, LOCK_USAGE } from './alert-usage';
export type { UsageRow } from './alert-usage';
