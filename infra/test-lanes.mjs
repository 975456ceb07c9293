// How `npm test` spends two cores: the e2e scenarios (the built apps as processes, mostly waiting on their cadences)
// run one file at a time in a lane of their own from the start, while the other workspaces' jest runs share a pool
// beside them, heaviest first, so no long workspace starts last and leaves a slot idle; a pool slot with nothing left
// takes the next scenario, so the scenarios finish two at a time once the workspaces are done.
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
 * Runs `pool` tasks (`{ name, weight, run }`, `run` resolving with an exit code) at most `concurrency` at a time, the
 * heaviest first (ties in the given order), and `own` tasks in order on a lane of their own, which pool slots with
 * nothing left help with. Resolves with the first non-zero code, else 0. Every task runs even when one fails.
 */
export async function runPool(pool, concurrency, own = []) {
  const poolQueue = pool.map((task, index) => ({ task, index })).sort((a, b) => b.task.weight - a.task.weight || a.index - b.index).map(({ task }) => task);
  const ownQueue = [...own];
  let worst = 0;
  const drain = async (next) => {
    for (let task = next(); task; task = next()) {
      const code = await task.run();
      if (code !== 0 && worst === 0) worst = code;
    }
  };
  const ownLane = own.length > 0 ? [drain(() => ownQueue.shift())] : [];
  const poolLanes = Array.from({ length: Math.max(1, concurrency) }, () => drain(() => poolQueue.shift() ?? ownQueue.shift()));
  await Promise.all([...ownLane, ...poolLanes]);
  return worst;
}
