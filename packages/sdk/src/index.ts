export { createClient } from './hashwatch-client';
export type { ClientOptions, HashwatchClient, PagesOptions } from './hashwatch-client';
export type { FeedFilters, WatchOptions } from './feed-watch';
export { HashwatchError, fieldOf } from './hashwatch-error';
export { rateLimitWaitMs } from './rate-limit-wait';
export type { ErrorCode, FeedItem, HttpMethod, Notice, PageItem, PagedPath, PathsFor, QueryOf, RequestArgs, RequestOptionsFor, ResponseFor, Schemas } from './api-types';
export type { components, operations, paths } from './generated/schema';
