// The engagement poller's public entry: what a process that embeds a poller, or measures its stages (bench/),
// needs. src/main.ts composes the app itself from the environment; everything else in src/ is internal.
export { createEngagementPoller, DEFAULT_POLLER_OPTIONS } from './engagement-poller';
// The environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { pollerConfig } from './poller-config';
export type { CycleReport, EngagementPoller, EngagementPollerDeps, PollerOptions } from './engagement-poller';
export { startPollerWorker } from './poller-workers';
export { reconcileRefreshSchedulers } from './scheduling/refresh-schedulers';
// The stages of one cycle, and the statements of its hot path, for measuring them one by one.
export { discoverTrackedPosts } from './discovery/discover-tracked-posts';
export { CLAIM, WRITE_COUNTS } from './counts/refresh-counts';
