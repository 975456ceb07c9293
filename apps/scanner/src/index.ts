// The scanner's public entry: what a process that embeds a scanner, or measures its stages one by one (bench/),
// needs. src/main.ts composes the app itself from the environment; everything else in src/ is internal.
export { createScanner } from './scanner';
// The environment src/main.ts reads (docs/CONFIGURATION.md is rendered from it).
export { scannerConfig } from './scanner-config';
export type { Scanner, ScannerOptions, StoredBatch, TickSummary } from './scanner';
export { startScannerWorkers } from './scanner-workers';
export { reconcileScanSchedulers } from './scan-schedulers';
// The stages of one scan: sync the sources, pack them into queries, fetch, match, store.
export { syncSources } from './sources/sync-sources';
export type { Source } from './sources/source';
export { buildQuery, packSources, queryLength, sourceClause, sourceTerms } from './packing/pack-sources';
export { fetchPack, packSinceId } from './fetching/fetch-pack';
export { matchPosts, toFeedItem } from './matching/match-posts';
export type { Subscription } from './matching/match-posts';
export { storePack } from './storing/store-pack';
// Retention: the maintenance queue's sweep of expired feed items, orphan posts and unpaid checkouts.
export { sweepRetention, DEFAULT_SWEEP_LIMITS } from './maintenance/retention-sweep';
export type { SweepLimits, SweepSummary, SweepOptions } from './maintenance/retention-sweep';
export { startMaintenanceWorker, ensureSweepScheduler, SWEEP_SCHEDULER_ID } from './maintenance/maintenance-worker';
// Source notices: the silence detector (bench/silence-detector.ts runs this very module).
export { DEFAULT_SILENCE_PARAMS, emptySilenceState, observePosts, silenceVerdict, typicalGapSeconds } from './silence/silence-detector';
export type { SilenceParams, SilenceState, SilenceVerdict } from './silence/silence-detector';
export { planRules, ruleSources } from './stream/rule-plan';
export type { RuleLimits, RulePlan } from './stream/rule-plan';
