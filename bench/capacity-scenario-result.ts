// What a run of the capacity scenario (bench/capacity-scenario.ts) measured: the scenario writes it, the model
// (bench/capacity-model.ts) compares it with its prediction.
import type { Window } from './capacity-measure';

/** What one run measured, per phase. */
export interface ScenarioResult {
  idle: Window;
  accounts: number;
  sources: number;
  queriesPerCadence: Record<string, number>;
  scan: Window;
  /** Posts each reaching one account (SINGLE_POSTS_PER_SECOND), and 20 s after them for the last to be stored. */
  single: Window;
  singlePostsInjected: number;
  posts: Window;
  postsInjected: number;
  meanFanOut: number;
  itemsAfterDrain: number;
  /** Feed transactions and route-alerts jobs of the posts phase's posts, counted after the drain. */
  batchesAfterDrain: number;
  routingJobsAfterDrain: number;
  rowsAfterDrain: Record<string, number>;
  bytesAfterDrain: Record<string, number>;
  bytesPerRow: Record<string, number>;
}
