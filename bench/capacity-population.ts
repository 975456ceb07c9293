// The population the capacity model and the capacity scenario share: accounts on the three plans in an assumed
// mix, each tracking a share of its plan's limits, tags drawn Zipf from a vocabulary and watched users drawn Zipf
// from a set of handles. Deterministic (seeded), so the model and the scenario describe the same accounts.
import { seededRandom, ZipfSampler } from '@hashwatch/x-simulator';
import { packSources, type Source } from '@hashwatch/scanner';
import { tagVocabulary } from './scanner-support';

export type PlanName = 'starter' | 'pro' | 'business';

export interface PlanProfile {
  /** Share of the accounts on this plan. */
  share: number;
  /** What the account tracks: hashtags and watched accounts (a share of the plan's limits, prisma/seed.sql). */
  tags: number;
  users: number;
  /** The plan's values, as prisma/seed.sql sets them. */
  hashtagsLimit: number;
  accountsLimit: number;
  scanIntervalSeconds: number;
  engagementRefreshSeconds: number;
  alertsPerMonth: number;
}

/**
 * The assumed mix: most accounts on the cheapest plan, a tenth on Business. Each account tracks two thirds
 * of its hashtag limit and half of its account limit (rounded): paying users fill most, not all, of a plan.
 */
export const PLAN_MIX: Record<PlanName, PlanProfile> = {
  starter: { share: 0.6, tags: 2, users: 1, hashtagsLimit: 3, accountsLimit: 2, scanIntervalSeconds: 60, engagementRefreshSeconds: 300, alertsPerMonth: 1_000 },
  pro: { share: 0.3, tags: 10, users: 5, hashtagsLimit: 15, accountsLimit: 10, scanIntervalSeconds: 30, engagementRefreshSeconds: 180, alertsPerMonth: 25_000 },
  business: { share: 0.1, tags: 27, users: 13, hashtagsLimit: 40, accountsLimit: 25, scanIntervalSeconds: 10, engagementRefreshSeconds: 60, alertsPerMonth: 75_000 },
};

/** Tags are drawn Zipf (s = 1) from this many; handles Zipf (s = 1) from `HANDLES`. */
export const VOCABULARY = 50_000;
export const HANDLES = 20_000;
export const SEED = 20261127;

export interface PopulationAccount {
  index: number;
  plan: PlanName;
  tags: string[];
  users: string[];
}

export interface Population {
  accounts: PopulationAccount[];
  vocabulary: string[];
  handles: string[];
  /** The tag and user sources the accounts make, each at the shortest cadence of the accounts tracking it. */
  sources: Source[];
  /** For each tag: the indices of the accounts tracking it (what a post with that tag fans out to). */
  trackersOfTag: Map<string, number[]>;
}

export function planOf(index: number, count: number): PlanName {
  // Plans interleave so any prefix of the accounts keeps the mix.
  const position = ((index * 7919) % count) / count;
  if (position < PLAN_MIX.starter.share) return 'starter';
  if (position < PLAN_MIX.starter.share + PLAN_MIX.pro.share) return 'pro';
  return 'business';
}

export function handleName(rank: number): string {
  return `watched${String(rank).padStart(5, '0')}`;
}

let cachedVocabulary: string[] | undefined;
function vocabulary(): string[] {
  cachedVocabulary ??= tagVocabulary(VOCABULARY, seededRandom(SEED));
  return cachedVocabulary;
}

function drawDistinct(count: number, sample: () => number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(sample());
  return [...chosen];
}

/** `count` accounts of the mix, with their tracks and the sources they make. */
export function buildPopulation(count: number): Population {
  const random = seededRandom(SEED + 1);
  const words = vocabulary();
  const tagRanks = new ZipfSampler(words.length, 1, random);
  const handleRanks = new ZipfSampler(HANDLES, 1, random);
  const accounts: PopulationAccount[] = [];
  const tagInterval = new Map<string, number>();
  const userInterval = new Map<string, number>();
  const trackersOfTag = new Map<string, number[]>();
  for (let index = 0; index < count; index += 1) {
    const plan = planOf(index, count);
    const profile = PLAN_MIX[plan];
    const tags = drawDistinct(profile.tags, () => tagRanks.sample()).map((rank) => words[rank] as string);
    const users = drawDistinct(profile.users, () => handleRanks.sample()).map(handleName);
    accounts.push({ index, plan, tags, users });
    for (const tag of tags) {
      tagInterval.set(tag, Math.min(tagInterval.get(tag) ?? Infinity, profile.scanIntervalSeconds));
      const trackers = trackersOfTag.get(tag) ?? [];
      trackers.push(index);
      trackersOfTag.set(tag, trackers);
    }
    for (const user of users) userInterval.set(user, Math.min(userInterval.get(user) ?? Infinity, profile.scanIntervalSeconds));
  }
  const source = (kind: Source['kind'], name: string, intervalSeconds: number): Source => ({
    key: `${kind}:${name}`, kind, name, sinceId: null, notBefore: new Date(0), intervalSeconds, failures: 0,
  });
  const sources = [
    ...[...tagInterval].map(([name, interval]) => source('tag', name, interval)),
    ...[...userInterval].map(([name, interval]) => source('user', name, interval)),
  ];
  return { accounts, vocabulary: words, handles: [...userInterval.keys()], sources, trackersOfTag };
}

/** Packed queries per cycle at each cadence, packed as the scanner packs (claims of up to 1,000 sources). */
export function queriesPerCadence(sources: readonly Source[], maxQueryLength: number, claimSize = 1000): Map<number, number> {
  const byInterval = new Map<number, Source[]>();
  for (const source of sources) {
    const group = byInterval.get(source.intervalSeconds) ?? [];
    group.push(source);
    byInterval.set(source.intervalSeconds, group);
  }
  const queries = new Map<number, number>();
  for (const [interval, group] of byInterval) {
    let packs = 0;
    for (let start = 0; start < group.length; start += claimSize) packs += packSources(group.slice(start, start + claimSize), maxQueryLength).packs.length;
    queries.set(interval, packs);
  }
  return queries;
}

/**
 * The post stream of the scenario: `count` posts with 1-2 tags drawn Zipf (s = 1) from the vocabulary, like
 * the scanner benches' posts; a fifth are by watched users.
 */
export function postStream(population: Population, seed: number): () => { author: string; tags: string[] } {
  const random = seededRandom(seed);
  const tagRanks = new ZipfSampler(population.vocabulary.length, 1, random);
  const authors = population.handles.length > 0 ? new ZipfSampler(population.handles.length, 1, random) : undefined;
  let n = 0;
  return () => {
    n += 1;
    const tags = [population.vocabulary[tagRanks.sample()] as string];
    if (random() < 0.4) tags.push(population.vocabulary[tagRanks.sample()] as string);
    const author = authors && n % 5 === 0 ? (population.handles[authors.sample()] as string) : `someone${n % 997}`;
    return { author, tags };
  };
}

/** Accounts a post reaches: those tracking one of its tags, plus those watching its author. */
export function fanOut(population: Population, post: { author: string; tags: string[] }, watchers: Map<string, number[]>): number {
  const reached = new Set<number>();
  for (const tag of post.tags) for (const index of population.trackersOfTag.get(tag) ?? []) reached.add(index);
  for (const index of watchers.get(post.author) ?? []) reached.add(index);
  return reached.size;
}

export function watchersOf(population: Population): Map<string, number[]> {
  const watchers = new Map<string, number[]>();
  for (const account of population.accounts) {
    for (const user of account.users) {
      const list = watchers.get(user) ?? [];
      list.push(account.index);
      watchers.set(user, list);
    }
  }
  return watchers;
}
