// What X's filtered stream (X_STREAM=true) changes in the capacity model: how many of a population's sources one
// X app's rules cover, with the scanner's own rule planner (apps/scanner/src/stream/rule-plan.ts), and how many
// recent searches per 15 minutes are left for the sources beyond the rule cap. Pure computation on the shared
// population, like the search packing of the model.
import { planRules, type RuleLimits } from '@hashwatch/scanner';
import { queriesPerCadence, type Population } from './capacity-population';

/** The filtered stream's rule limits per X plan (PLATFORMS.md d). */
export const STREAM_LIMITS: Record<'payPerUse' | 'enterprise', RuleLimits> = {
  payPerUse: { maxRules: 1_000, maxLength: 1_024 },
  enterprise: { maxRules: 25_000, maxLength: 2_048 },
};

export interface StreamCoverage {
  /** Rules the planner writes. */
  rules: number;
  /** Sources they cover, and those left to search (the fastest cadences are covered first). */
  covered: number;
  uncovered: number;
  /** Recent searches per 15 minutes the uncovered sources need at their cadences (512-character queries). */
  searchesPer15Min: number;
  /** Searches one disconnection's back-fill takes: every covered source, packed once (512-character queries). */
  backfillSearches: number;
}

/** Searches in a window of `seconds` at each cadence's pace, one request per packed query and cycle. */
function searchesIn(queries: Map<number, number>, seconds: number): number {
  return [...queries].reduce((sum, [cadence, count]) => sum + (count * seconds) / cadence, 0);
}

export function streamCoverage(population: Population, limits: RuleLimits, searchPerQueryCycle: number, maxQueryLength = 512): StreamCoverage {
  const wanted = [...population.sources].sort((a, b) => a.intervalSeconds - b.intervalSeconds || (a.key < b.key ? -1 : 1));
  const plan = planRules([], wanted, limits);
  const left = new Set(plan.uncovered);
  const uncovered = wanted.filter((source) => left.has(source.key));
  const covered = wanted.filter((source) => !left.has(source.key));
  const backfill = queriesPerCadence(covered.map((source) => ({ ...source, intervalSeconds: 0 })), maxQueryLength, covered.length || 1);
  return {
    rules: plan.addFirst.length + plan.addAfter.length,
    covered: covered.length,
    uncovered: uncovered.length,
    searchesPer15Min: Math.round(searchesIn(queriesPerCadence(uncovered, maxQueryLength), 900) * searchPerQueryCycle),
    backfillSearches: [...backfill.values()].reduce((sum, count) => sum + count, 0),
  };
}
