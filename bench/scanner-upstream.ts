// Upstream efficiency of the scanner: search requests per cycle for 1,000 accounts each tracking 10 tags drawn
// Zipf from 2,000, plus 300 tracked users, against one query per source and against the packing lower bound.
// Also measures how to watch the accounts: packed `from:` queries versus one timeline call per user.
//
//   npx tsx --tsconfig bench/tsconfig.json bench/scanner-upstream.ts
//   SCANNER_BENCH_FILTERS=on npx tsx --tsconfig bench/tsconfig.json bench/scanner-upstream.ts
//
// With SCANNER_BENCH_FILTERS=on, tracks carry filters: every tracker of each tenth tag wants media (its source is
// narrowed by has:media), and a third of the other tracks have keywords and a follower floor (applied by us alone).
// A tenth of the posts carry a photo. The bound is then the packing bound of the narrowed clauses.
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL). Makes its
// own database and Redis prefix and removes them. Runs the real scanner against an in-process X simulator
// (rate limits lifted: this counts calls, it does not wait for windows) and counts what the simulator served.
import type { XClient } from '@hashwatch/x-api';
import { seededRandom, ZipfSampler } from '@hashwatch/x-simulator';
import { buildQuery, createScanner, fetchPack, packSinceId, packSources, queryLength, sourceClause, sourceTerms, type Scanner, type Source } from '@hashwatch/scanner';
import {
  benchEnvironment,
  log,
  machineLine,
  seedAccounts,
  seedAccountTracks,
  seedTracks,
  tagVocabulary,
  type BenchEnvironment,
} from './scanner-support';

const ACCOUNTS = 1000;
const TAGS_PER_ACCOUNT = 10;
const VOCABULARY = 2000;
const ZIPF_EXPONENT = 1;
const TRACKED_USERS = 300;
const MAX_QUERY_LENGTH = 512;
// Posts published between two cycles: a busy 10 s for these sources.
const POSTS_PER_CYCLE = Number(process.env.SCANNER_BENCH_POSTS ?? 3000);
const FILTERS = process.env.SCANNER_BENCH_FILTERS === 'on';
/** In filters mode, every tracker of each tenth tag (by its rank in the vocabulary) wants media. */
const MEDIA_TAG_EVERY = 10;

interface Tally {
  requests: number;
  postsRead: number;
}

/** Requests per endpoint the simulator has served so far. */
type Counters = ReturnType<BenchEnvironment['sim']['state']['requestLog']['counters']>['endpoints'];

/** The sources of one cycle: the distinct tags tracked and the watched users, and the packing bounds of their terms. */
interface Workload {
  tagSources: Source[];
  userSources: Source[];
  termChars: number;
  termCount: number;
  clauseChars: number;
  boundTermsOnly: number;
  boundWithSeparators: number;
}

/** 1,000 accounts with 10 tags each drawn Zipf from the vocabulary, and 300 watched users followed by one or two accounts. */
async function seedTracking(env: BenchEnvironment, pickTag: () => string, mediaTags: ReadonlySet<string>) {
  // A small alert quota: this bench counts upstream calls, and storing 700,000 items would only slow it.
  // A 60 s cadence: a cycle here is one pass over every source, whatever the time it takes on this machine.
  const users = await seedAccounts(env.db, ACCOUNTS, { alertsLimit: 20, scanIntervalSeconds: 60 });
  const tracks: { userId: string; hashtag: string }[] = [];
  for (const userId of users) {
    const chosen = new Set<string>();
    while (chosen.size < TAGS_PER_ACCOUNT) chosen.add(pickTag());
    for (const hashtag of chosen) tracks.push({ userId, hashtag });
  }
  await seedTracks(env.db, tracks);
  if (FILTERS) await seedFilters(env, mediaTags);
  const handles = Array.from({ length: TRACKED_USERS }, (_, i) => `watched${String(i).padStart(4, '0')}`);
  for (const handle of handles) env.sim.state.createUser({ username: handle });
  // Each handle followed by one account, a third of them by a second one too.
  const follows = handles.flatMap((username, i) => [
    { userId: users[i % ACCOUNTS] as string, username },
    ...(i % 3 === 0 ? [{ userId: users[(i * 7 + 500) % ACCOUNTS] as string, username }] : []),
  ]);
  await seedAccountTracks(env.db, follows);
  return { tracks, handles, follows, mediaTags };
}

/** Filters mode: media on every track of the media tags; keywords and a follower floor on a third of the others. */
async function seedFilters(env: BenchEnvironment, mediaTags: ReadonlySet<string>): Promise<void> {
  const media = { keywords_any: [], keywords_all: [], keywords_none: [], has_media: true, has_links: false, exclude_quotes: false, verified_only: false, min_followers: 0 };
  const words = { ...media, has_media: false, keywords_any: ['post', '"all time high"'], keywords_none: ['giveaway'], min_followers: 0 };
  await env.db.pool.query(
    `UPDATE tracks SET filters = CASE WHEN hashtag_norm = ANY($1::text[]) THEN $2::jsonb WHEN hashtext(id) % 3 = 0 THEN $3::jsonb END`,
    [[...mediaTags], media, words],
  );
}

/** The sources the tracks make and the fewest queries that can hold their terms; logs their counts. */
function describeWorkload({ tracks, handles, follows, mediaTags }: Awaited<ReturnType<typeof seedTracking>>): Workload {
  const distinctTags = [...new Set(tracks.map((t) => t.hashtag))];
  const sourcesOf = (kind: Source['kind'], names: string[]): Source[] =>
    names.map((name) => ({ key: `${kind}:${name}`, kind, name, sinceId: null, notBefore: new Date(), intervalSeconds: 10, failures: 0 }));
  const tagSources = sourcesOf('tag', distinctTags).map((source) => (mediaTags.has(source.name) ? { ...source, operators: ['has:media'] } : source));
  const userSources = sourcesOf('user', handles);
  const all = [...tagSources, ...userSources];
  const termChars = all.flatMap(sourceTerms).reduce((sum, term) => sum + queryLength(term), 0);
  const termCount = all.flatMap(sourceTerms).length;
  const cashtagForms = tagSources.filter((s) => sourceTerms(s).length === 2).length;
  // Any valid query is its sources' clauses joined by " OR " (4 characters), a clause being a source's terms joined
  // by " OR " and, when narrowed, grouped with its operators after them: k clauses in q queries need
  // sum(len) + 4(k - q) characters, at most 512 per query, so q >= (sum(len) + 4k) / (512 + 4).
  const clauseChars = all.reduce((sum, source) => sum + queryLength(sourceClause(source)), 0);
  const boundTermsOnly = Math.ceil(termChars / MAX_QUERY_LENGTH);
  const boundWithSeparators = Math.ceil((clauseChars + 4 * all.length) / (MAX_QUERY_LENGTH + 4));
  log(`sources: ${distinctTags.length} distinct tags (${cashtagForms} with a cashtag form, ${tagSources.filter((s) => s.operators).length} narrowed by has:media) from ${tracks.length} tracks, ${handles.length} users from ${follows.length} account tracks`);
  log(`needed terms: ${termCount}, ${termChars} characters; clauses with their operators and inner separators: ${clauseChars} characters`);
  return { tagSources, userSources, termChars, termCount, clauseChars, boundTermsOnly, boundWithSeparators };
}

/** Requests and posts served on `endpoint` since the `before` reading. */
function tallySince(env: BenchEnvironment, endpoint: string, before: Counters): Tally {
  const counters = env.sim.state.requestLog.counters().endpoints;
  return {
    requests: (counters[endpoint]?.requests ?? 0) - (before[endpoint]?.requests ?? 0),
    postsRead: (counters[endpoint]?.postsServed ?? 0) - (before[endpoint]?.postsServed ?? 0),
  };
}

/** Posts of one cycle: 1-2 tags each (Zipf), a fifth of them by watched users. */
function publishCycle(env: BenchEnvironment, random: () => number, pickTag: () => string, handles: string[]): void {
  const authorRanks = new ZipfSampler(handles.length, 1, random);
  const pickAuthor = () => authorRanks.sample();
  for (let i = 0; i < POSTS_PER_CYCLE; i += 1) {
    const author = i % 5 === 0 ? (handles[pickAuthor()] as string) : `someone${i % 997}`;
    const tags = [pickTag(), ...(random() < 0.4 ? [pickTag()] : [])];
    const media = FILTERS && i % 10 === 0 ? [{ type: 'photo' as const, url: `https://pbs.twimg.com/media/b${i}.jpg`, width: 800, height: 600 }] : undefined;
    env.sim.state.injectPost({ author, text: `${tags.map((tag) => `#${tag}`).join(' ')} post ${i}`, ...(media ? { media } : {}) });
  }
}

/** Each source as it stands in source_cursors now: its cursor and not-before. */
async function withCursors(env: BenchEnvironment): Promise<(source: Source) => Source> {
  const { rows: cursorRows } = await env.db.pool.query<{ source_key: string; since_id: string | null; not_before: Date }>('SELECT source_key, since_id, not_before FROM source_cursors');
  const cursors = new Map(cursorRows.map((row) => [row.source_key, row]));
  return (source: Source): Source => ({ ...source, sinceId: cursors.get(source.key)?.since_id ?? null, notBefore: cursors.get(source.key)?.not_before ?? source.notBefore });
}

/** Runs these queries once each, with their pages; returns the requests and posts they took. */
async function runQueries(x: XClient, queries: { query: string; sources: Source[] }[]): Promise<Tally & { queries: number }> {
  const options = { retryDelaysMs: [], sleep: async () => undefined, now: Date.now };
  const tally = { requests: 0, postsRead: 0, queries: queries.length };
  for (const { query, sources } of queries) {
    const fetched = await fetchPack(x, query, packSinceId(sources, Date.now()), options);
    tally.requests += fetched.requests;
    tally.postsRead += fetched.postsRead;
  }
  return tally;
}

/** The scanner as shipped (1,000 sources per claim, 512-character queries), noting each packed query it completes. */
function countingScanner(env: BenchEnvironment): { scanner: Scanner; packLog: { requests: number }[] } {
  const packLog: { requests: number }[] = [];
  const scanner = createScanner({
    pool: env.db.pool, x: env.xClient(), queues: env.queues, logger: env.logger, maxQueryLength: MAX_QUERY_LENGTH,
    onBatchStored: ({ complete }) => {
      if (complete) packLog.push({ requests: 1 });
    },
  });
  return { scanner, packLog };
}

/** Cycle 1 creates the sources, resolves the handles once and sets every cursor. */
async function coldCycle(env: BenchEnvironment, scanner: Scanner): Promise<void> {
  const before = env.sim.state.requestLog.counters().endpoints;
  const first = await scanner.runTick();
  log(`cycle 1 (cold): ${first.claimed} sources claimed, ${tallySince(env, 'search_recent', before).requests} searches, ${tallySince(env, 'users_by_usernames', before).requests} user lookups (once per handle, ever)`);
}

/** Cycle 2 over one cycle's posts: the scanner's packed queries, and the requests and posts they took. */
async function steadyCycle(env: BenchEnvironment, { scanner, packLog }: ReturnType<typeof countingScanner>): Promise<{ queries: number; tally: Tally }> {
  await env.db.pool.query('UPDATE source_cursors SET next_scan_at = now()');
  const before = env.sim.state.requestLog.counters().endpoints;
  packLog.length = 0;
  const steady = await scanner.runTick();
  const scannerTally = tallySince(env, 'search_recent', before);
  const scannerQueries = packLog.length;
  log(`cycle 2 (steady): ${steady.claimed} sources, ${steady.stored} items stored, ${scannerQueries} packed queries, ${scannerTally.requests} requests with next_token pages, ${scannerTally.postsRead} posts read`);
  return { queries: scannerQueries, tally: scannerTally };
}

/** The same posts fetched the other ways, each source from the cursor it had before cycle 2. */
async function measureAlternatives(env: BenchEnvironment, { tagSources, userSources }: Workload, withCursor: (source: Source) => Source) {
  const x = env.xClient();
  // Baseline: one query per source over the same posts.
  const perSource = await runQueries(x, [...tagSources, ...userSources].map(withCursor).map((source) => ({ query: buildQuery([sourceClause(source)]), sources: [source] })));
  // Accounts alone, both ways: packed from: queries, and one timeline call (with pages) per user.
  const fromPacks = packSources(userSources.map(withCursor), MAX_QUERY_LENGTH).packs;
  const packedFrom = await runQueries(x, fromPacks.map((pack) => ({ query: pack.query, sources: pack.sources })));
  const timelines = await runTimelines(x, env.sim, userSources.map(withCursor));
  const tagPacks = packSources(tagSources.map(withCursor), MAX_QUERY_LENGTH).packs;
  return { perSource, fromPacks: fromPacks.length, packedFrom, timelines, tagPacks: tagPacks.length };
}

/** The scanner's queries against one query per source and the lower bounds; then other query lengths and claims. */
function reportPacking(workload: Workload, scanner: Awaited<ReturnType<typeof steadyCycle>>, others: Awaited<ReturnType<typeof measureAlternatives>>): void {
  const { tagSources, userSources, termChars, termCount, clauseChars, boundTermsOnly, boundWithSeparators } = workload;
  const { queries: scannerQueries, tally: scannerTally } = scanner;
  const { perSource } = others;
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  log('');
  log('| strategy | queries per cycle | vs bound with separators | vs terms-only bound | requests incl. next_token pages | posts read |');
  log('|---|---|---|---|---|---|');
  log(`| scanner: tags and users packed together (FFD per cadence, per claim of ≤1,000 sources) | ${scannerQueries} | ${ratio(scannerQueries, boundWithSeparators)}× | ${ratio(scannerQueries, boundTermsOnly)}× | ${scannerTally.requests} | ${scannerTally.postsRead} |`);
  log(`| one query per source | ${perSource.queries} | ${ratio(perSource.queries, boundWithSeparators)}× | ${ratio(perSource.queries, boundTermsOnly)}× | ${perSource.requests} | ${perSource.postsRead} |`);
  log(`| lower bound with " OR " separators: ceil((${clauseChars} + 4·${tagSources.length + userSources.length}) / 516) | ${boundWithSeparators} | 1.00× | | | |`);
  log(`| lower bound, terms only: ceil(${termChars} / 512) | ${boundTermsOnly} | | 1.00× | | |`);
  log('');
  const enterprise = packSources([...tagSources, ...userSources], 4096).packs.length;
  log(`with X_QUERY_MAX_LENGTH=4096 (Enterprise) the same sources take ${enterprise} queries (bound ${Math.ceil((clauseChars + 4 * (tagSources.length + userSources.length)) / (4096 + 4))}); ${termCount} terms`);
  log(`all sources packed in one claim would take ${packSources([...tagSources, ...userSources], MAX_QUERY_LENGTH).packs.length} queries (tags alone ${others.tagPacks}, users alone ${others.fromPacks})`);
  log(`scanner vs one query per source: ${ratio(perSource.requests, scannerTally.requests)}× fewer requests, ${ratio(perSource.postsRead, scannerTally.postsRead)}× the posts read`);
}

/** Watching the 300 users: packed from: queries against one timeline call per user. */
function reportWatching({ packedFrom, timelines }: Awaited<ReturnType<typeof measureAlternatives>>): void {
  log('');
  log('| watching 300 users | requests per cycle | posts read | rate-limit bucket (per 15 min, app) |');
  log('|---|---|---|---|');
  log(`| packed from: queries (recent search) | ${packedFrom.requests} | ${packedFrom.postsRead} | search_recent 450 |`);
  log(`| timelines (GET /2/users/:id/tweets) | ${timelines.requests} | ${timelines.postsRead} | user_posts 10,000 |`);
}

async function main(): Promise<void> {
  log(machineLine());
  log(`filters: ${FILTERS ? 'on' : 'off'}`);
  const env = await benchEnvironment('upstream');
  try {
    const random = seededRandom(42);
    const vocabulary = tagVocabulary(VOCABULARY, random);
    const tagRanks = new ZipfSampler(VOCABULARY, ZIPF_EXPONENT, random);
    const pickTag = () => vocabulary[tagRanks.sample()] as string;
    const mediaTags = new Set(FILTERS ? vocabulary.filter((_, rank) => rank % MEDIA_TAG_EVERY === 0) : []);
    const tracking = await seedTracking(env, pickTag, mediaTags);
    const workload = describeWorkload(tracking);
    const counting = countingScanner(env);
    await coldCycle(env, counting.scanner);
    publishCycle(env, random, pickTag, tracking.handles);
    const withCursor = await withCursors(env);
    const scanner = await steadyCycle(env, counting);
    const others = await measureAlternatives(env, workload, withCursor);
    reportPacking(workload, scanner, others);
    reportWatching(others);
  } finally {
    await env.close();
  }
}

/** One timeline call per user (plus its pages) from the same cursor: the alternative to from: queries. */
async function runTimelines(x: XClient, sim: { state: { store: { userByUsername(name: string): { id: string } | undefined } } }, sources: Source[]): Promise<Tally> {
  const tally: Tally = { requests: 0, postsRead: 0 };
  for (const source of sources) {
    const id = sim.state.store.userByUsername(source.name)?.id;
    if (!id) continue;
    const sinceId = packSinceId([source], Date.now());
    let paginationToken: string | undefined;
    do {
      const page = await x.userPosts(id, { sinceId, ...(paginationToken ? { paginationToken } : {}) });
      tally.requests += 1;
      tally.postsRead += page.posts.length + page.includedPosts.length;
      paginationToken = page.meta.nextToken ?? undefined;
    } while (paginationToken);
  }
  return tally;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
