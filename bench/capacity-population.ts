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

/**
 * The packs one cycle of each cadence makes, as the scanner makes them: sources claimed up to 1,000 at a time, each
 * claim packed. `byKey` claims in `source_key` order (the claim's `ORDER BY next_scan_at, source_key` for sources
 * due together), which decides which sources share a pack; without it, in the population's order.
 */
export function packsPerCadence(sources: readonly Source[], maxQueryLength: number, options: { claimSize?: number; byKey?: boolean } = {}): Map<number, Source[][]> {
  const { claimSize = 1000, byKey = false } = options;
  const byInterval = new Map<number, Source[]>();
  for (const source of sources) {
    const group = byInterval.get(source.intervalSeconds) ?? [];
    group.push(source);
    byInterval.set(source.intervalSeconds, group);
  }
  const packs = new Map<number, Source[][]>();
  for (const [interval, group] of byInterval) {
    if (byKey) group.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const list: Source[][] = [];
    for (let start = 0; start < group.length; start += claimSize) {
      for (const pack of packSources(group.slice(start, start + claimSize), maxQueryLength).packs) list.push(pack.sources);
    }
    packs.set(interval, list);
  }
  return packs;
}

/** Packed queries per cycle at each cadence (packsPerCadence, counted; the count barely depends on the order). */
export function queriesPerCadence(sources: readonly Source[], maxQueryLength: number, claimSize = 1000): Map<number, number> {
  return new Map([...packsPerCadence(sources, maxQueryLength, { claimSize })].map(([interval, packs]) => [interval, packs.length]));
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

/** What the scanner commits for a post stream: feed batches, the route-alerts jobs they carry, and items. */
export interface FeedBatches {
  /** Feed transactions: one per pack scan that stores at least one new item (one page at these rates). */
  batchesPerSecond: number;
  /** route-alerts jobs: a batch's items in chunks of `maxItemsPerJob` (ROUTE_ALERTS_MAX_ITEMS). */
  routingJobsPerSecond: number;
  itemsPerSecond: number;
}

/** The packs a post reaches and, per pack, the accounts it reaches through that pack's sources. */
export interface PostHits {
  hits: { pack: { id: number; cadence: number; phase: number }; accounts: (readonly number[])[] }[];
}

const hitsCache = new WeakMap<Population, Map<string, PostHits[]>>();

/**
 * `sample` posts of `postStream(population, seed)` and the packs (claims in `source_key` order, 512-character
 * queries) that find each; each pack's scans start at a phase of its own. Cached per population.
 */
export function postHits(population: Population, seed = 7, sample = 4000): PostHits[] {
  const cache = hitsCache.get(population) ?? new Map<string, PostHits[]>();
  hitsCache.set(population, cache);
  const cached = cache.get(`${seed}:${sample}`);
  if (cached) return cached;
  const packOf = new Map<string, PostHits['hits'][number]['pack']>();
  const phase = seededRandom(SEED + 2);
  let id = 0;
  for (const [cadence, packs] of packsPerCadence(population.sources, 512, { byKey: true })) {
    for (const pack of packs) {
      const entry = { id, cadence, phase: phase() * cadence };
      id += 1;
      for (const source of pack) packOf.set(source.key, entry);
    }
  }
  const watchers = watchersOf(population);
  const next = postStream(population, seed);
  const posts: PostHits[] = [];
  for (let n = 0; n < sample; n += 1) {
    const post = next();
    const byPack = new Map<number, PostHits['hits'][number]>();
    const reach = (key: string, accounts: readonly number[] | undefined) => {
      const pack = packOf.get(key);
      if (!pack || !accounts || accounts.length === 0) return;
      const hit = byPack.get(pack.id) ?? { pack, accounts: [] };
      hit.accounts.push(accounts);
      byPack.set(pack.id, hit);
    };
    for (const tag of new Set(post.tags)) reach(`tag:${tag}`, population.trackersOfTag.get(tag));
    reach(`user:${post.author}`, watchers.get(post.author));
    posts.push({ hits: [...byPack.values()] });
  }
  cache.set(`${seed}:${sample}`, posts);
  return posts;
}

/** Accounts a post reaches through its packs (fanOut's count, over the packs that find it). */
export function reachedAccounts(post: PostHits): number {
  const [only] = post.hits;
  if (post.hits.length === 1 && only && only.accounts.length === 1) return only.accounts[0]?.length ?? 0;
  const reached = new Set<number>();
  for (const hit of post.hits) for (const list of hit.accounts) for (const account of list) reached.add(account);
  return reached.size;
}

/**
 * Feed batches a post stream makes at the plans' scan intervals (postHits' posts published `postsPerSecond`
 * apart): a pack scanned every `c` seconds commits one batch per scan that found at least one new item, holding
 * every item of the posts published since its previous scan; an account a post reaches through two packs gets
 * its item from the pack scanned first (the other merges a source).
 */
export function feedBatches(population: Population, postsPerSecond: number, maxItemsPerJob: number, options: { seed?: number; sample?: number } = {}): FeedBatches {
  const posts = postHits(population, options.seed, options.sample);
  // Items per batch, by pack and scan number.
  const batches = new Map<string, number>();
  posts.forEach((post, n) => {
    const at = n / postsPerSecond;
    const scans = post.hits.map((hit) => {
      const scan = Math.floor((at + hit.pack.phase) / hit.pack.cadence) + 1;
      return { hit, scan, scannedAt: scan * hit.pack.cadence - hit.pack.phase };
    });
    const add = (key: string, items: number) => {
      if (items > 0) batches.set(key, (batches.get(key) ?? 0) + items);
    };
    const [only] = scans;
    if (scans.length === 1 && only && only.hit.accounts.length === 1) {
      add(`${only.hit.pack.id}:${only.scan}`, only.hit.accounts[0]?.length ?? 0);
      return;
    }
    const reached = new Set<number>();
    for (const { hit, scan } of scans.sort((a, b) => a.scannedAt - b.scannedAt)) {
      const before = reached.size;
      for (const list of hit.accounts) for (const account of list) reached.add(account);
      add(`${hit.pack.id}:${scan}`, reached.size - before);
    }
  });
  const seconds = posts.length / postsPerSecond;
  let routingJobs = 0;
  let items = 0;
  for (const count of batches.values()) {
    routingJobs += Math.ceil(count / maxItemsPerJob);
    items += count;
  }
  return { batchesPerSecond: batches.size / seconds, routingJobsPerSecond: routingJobs / seconds, itemsPerSecond: items / seconds };
}
