// Test fixtures for anything that stores feed items (`@hashwatch/feed/testing`).
export { hashtagPost } from '../test-support/hashtag-post';
export { latencyDelivery, latencyItems } from '../test-support/latency-rows';
