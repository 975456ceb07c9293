export { insertFeedItems } from './insert-feed-items';
export type { NewFeedItem, FeedItemRow, FeedMedia, FeedQuoted, FeedUrl } from './insert-feed-items';
export { lockAlertQuota, periodSubjectSql, QUOTA_WARNING_SHARE, usageQuery } from './alert-quota';
export type { AlertQuota, AlongsideLock, SourceShare, UpstreamShares, UsageStatement } from './alert-quota';
export { LATENCY_SAMPLE_ITEMS, latencyFrom, latencyOf, latencyStatement } from './latency';
export type { Latency, LatencyRow } from './latency';
export { erasePostsDeletedOnX } from './erase-deleted';
export { DEFAULT_ITEM_EXTRA, itemJsonSql } from './item-json';
