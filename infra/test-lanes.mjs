// How `npm test` spends two cores: the e2e scenarios (the built apps as processes, mostly waiting on their cadences)
// run in a lane of their own from the start, while the other workspaces' jest runs share a pool beside them,
// heaviest first, so no long workspace starts last and leaves the other slot idle.
import { testTiers } from './test-tiers.mjs';

// Seconds one test file costs, by tier, as measured on the 2-core machine (a file with a database and Redis of its
// own: about 6 s; a unit test file: about 1 s). Only the order they give matters.
const SERVICE_FILE_WEIGHT = 6;
const UNIT_FILE_WEIGHT = 1;

/** Each jest workspace's (`apps/gateway`) estimated cost, from how many test files of each tier it holds. */
export function workspaceWeights(root) {
  return new Map(testTiers(root).map((tier) => [tier.rel, tier.service.length * SERVICE_FILE_WEIGHT + tier.unit.length * UNIT_FILE_WEIGHT]));
}

/**
 * Runs `tasks` (`{ name, weight, run }`, `run` resolving with an exit code) at most `concurrency` at a time, the
 * heaviest first (ties in the given order); resolves with the first non-zero code, else 0. Every task runs even
 * when one fails, as `--continue` did.
 */
export async function runPool(tasks, concurrency) {
  const queue = tasks.map((task, index) => ({ task, index })).sort((a, b) => b.task.weight - a.task.weight || a.index - b.index);
  let worst = 0;
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const code = await next.task.run();
      if (code !== 0 && worst === 0) worst = code;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  return worst;
}
