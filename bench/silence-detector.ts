// The silence detector (`source_silent`, issue 16) on a synthetic fortnight of posts: the scanner's own module,
// fed the way the scanner feeds it (the posts published up to each scan, then a verdict at that scan).
//
//   npx tsx --tsconfig bench/tsconfig.json bench/silence-detector.ts [--sources 300] [--seed 1] [--scan 60]
//
// Each source posts as a Poisson process whose rate follows a day (rate x (1 + a sin), a from 0.3 to 0.9, or flat)
// with bursts (5 to 60 posts a few seconds apart, about twice a day), its mean gap from 1 minute to 4 hours.
// Week 1 is its history; week 2 is scored and holds 1 to 3 outages (every post inside removed, the scans still
// succeeding), each longer than 4x the source's typical gap and than the detector's floor. A source's typical
// gap is the time-weighted 90th percentile of its gaps over the fortnight without outages (the silence under
// which it spends 90 % of its time). A notice opens when a scan finds the source silent and resolves at the
// first scan finding it not silent; it detects the outages it overlaps, and is false when it overlaps none.
// The baseline is a fixed timer (no post for 2 h) run on the same posts and scans. SILENCE_BENCH_MISSES=1 lists
// the outages the detector missed on stderr.
import { seededRandom } from '@hashwatch/x-simulator';
import { DEFAULT_SILENCE_PARAMS, emptySilenceState, observePosts, silenceVerdict, type SilenceParams, type SilenceState } from '@hashwatch/scanner';

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const HOUR = 3_600_000;
const FIXED_TIMER_MS = 2 * HOUR;
const TYPICAL_QUANTILE = 0.9;

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

interface Outage {
  start: number;
  end: number;
}

interface SyntheticSource {
  meanGapMs: number;
  amplitude: number;
  typicalGapMs: number;
  posts: number[];
  outages: Outage[];
}

function exponential(rand: () => number, mean: number): number {
  return -Math.log(1 - rand()) * mean;
}

/** The gap under which 90 % of the source's time is spent: the typical gap, as the scanner's detector learns it. */
function typicalGap(posts: readonly number[]): number {
  const gaps = posts.slice(1).map((at, i) => at - (posts[i] as number)).filter((gap) => gap > 0).sort((a, b) => a - b);
  const total = gaps.reduce((sum, gap) => sum + gap, 0);
  let below = 0;
  for (const gap of gaps) {
    below += gap;
    if (below >= total * TYPICAL_QUANTILE) return gap;
  }
  return gaps.at(-1) ?? Number.POSITIVE_INFINITY;
}

function makeSource(rand: () => number, floorMs: number): SyntheticSource {
  // Mean gap log-uniform from 1 minute to 4 hours.
  const meanGapMs = 60_000 * Math.pow(240, rand());
  const amplitude = rand() < 0.2 ? 0 : 0.3 + 0.6 * rand();
  const phase = rand() * 2 * Math.PI;
  const peak = (1 + amplitude) / meanGapMs;
  const posts: number[] = [];
  // Thinning: candidates at the peak rate, kept with rate(t) / peak.
  for (let t = exponential(rand, 1 / peak); t < 2 * WEEK; t += exponential(rand, 1 / peak)) {
    const rate = (1 + amplitude * Math.sin((2 * Math.PI * t) / DAY + phase)) / meanGapMs;
    if (rand() < rate / peak) posts.push(t);
  }
  for (let t = exponential(rand, DAY / 2); t < 2 * WEEK; t += exponential(rand, DAY / 2)) {
    const size = 5 + Math.floor(rand() * 56);
    let at = t;
    for (let i = 0; i < size; i += 1) {
      at += exponential(rand, 5_000);
      posts.push(at);
    }
  }
  posts.sort((a, b) => a - b);
  const typicalGapMs = typicalGap(posts);
  // 1 to 3 outages in week 2, apart from each other, each from 1.05x to 3x the least outage to report.
  const least = Math.max(4 * typicalGapMs, floorMs);
  const outages: Outage[] = [];
  const count = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < count; i += 1) {
    const length = least * (1.05 + 1.95 * rand());
    const start = WEEK + rand() * (WEEK - length);
    if (start + length > 2 * WEEK) continue;
    const clash = outages.some((other) => start < other.end + least && other.start < start + length + least);
    if (!clash) outages.push({ start, end: start + length });
  }
  const kept = posts.filter((at) => !outages.some((outage) => at >= outage.start && at < outage.end));
  return { meanGapMs, amplitude, typicalGapMs, posts: kept, outages };
}

interface Detector {
  name: string;
  /** Folds the posts published since the last scan and says whether the source is silent at `now`. */
  scan(posts: readonly number[], now: number): boolean;
}

function learnedDetector(params: SilenceParams): Detector {
  let state: SilenceState = emptySilenceState();
  return {
    name: 'learned',
    scan(posts, now) {
      if (posts.length > 0) state = observePosts(state, posts, params);
      return silenceVerdict(state, now, params).silent;
    },
  };
}

function fixedTimer(): Detector {
  let last: number | null = null;
  return {
    name: `fixed ${FIXED_TIMER_MS / HOUR} h`,
    scan(posts, now) {
      if (posts.length > 0) last = posts.at(-1) as number;
      return last !== null && now - last > FIXED_TIMER_MS;
    },
  };
}

interface Score {
  outages: number;
  detected: number;
  falseNotices: number;
  delaysInTypicalGaps: number[];
  delaysMs: number[];
}

function run(source: SyntheticSource, detector: Detector, scanMs: number, score: Score): void {
  let next = 0;
  let open: number | null = null;
  const found = new Set<Outage>();
  // A notice episode runs from the scan that finds the source silent to the first that does not. It detects every
  // outage it overlaps (a silence that began as a natural gap and ran into an outage was told all the same), and
  // is false when it overlaps none. Episodes opened in week 1 (the history) are not scored.
  const close = (opened: number, closed: number) => {
    if (opened < WEEK) return;
    const overlapped = source.outages.filter((o) => opened <= o.end && closed >= o.start);
    if (overlapped.length === 0) score.falseNotices += 1;
    for (const outage of overlapped) {
      if (found.has(outage) || opened > outage.end) continue;
      found.add(outage);
      const delay = Math.max(0, opened - outage.start);
      score.delaysMs.push(delay);
      score.delaysInTypicalGaps.push(delay / source.typicalGapMs);
    }
  };
  for (let now = scanMs; now <= 2 * WEEK; now += scanMs) {
    const start = next;
    while (next < source.posts.length && (source.posts[next] as number) <= now) next += 1;
    const silent = detector.scan(source.posts.slice(start, next), now);
    if (silent && open === null) open = now;
    else if (!silent && open !== null) {
      close(open, now);
      open = null;
    }
  }
  if (open !== null) close(open, 2 * WEEK);
  score.outages += source.outages.length;
  score.detected += found.size;
  if (process.env.SILENCE_BENCH_MISSES === '1' && detector.name === 'learned') {
    for (const outage of source.outages.filter((o) => !found.has(o))) {
      const before = source.posts.filter((at) => at < outage.start).length;
      process.stderr.write(`missed: mean gap ${(source.meanGapMs / 60_000).toFixed(1)} min, a ${source.amplitude.toFixed(2)}, typical ${(source.typicalGapMs / 60_000).toFixed(1)} min, outage ${((outage.end - outage.start) / 60_000).toFixed(1)} min, posts before ${before}\n`);
    }
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number);
}

const emptyScore = (): Score => ({ outages: 0, detected: 0, falseNotices: 0, delaysInTypicalGaps: [], delaysMs: [] });

function main(): void {
  const count = argument('sources', 300);
  const seed = argument('seed', 1);
  const scanMs = argument('scan', 60) * 1000;
  const params: SilenceParams = { ...DEFAULT_SILENCE_PARAMS };
  for (const key of Object.keys(params) as (keyof SilenceParams)[]) params[key] = argument(key, params[key]);
  const rand = seededRandom(seed);
  const sources = Array.from({ length: count }, () => makeSource(rand, params.floorSeconds * 1000));
  const learned = emptyScore();
  const baseline = emptyScore();
  const perSourceFalse: number[] = [];
  const started = process.hrtime.bigint();
  for (const source of sources) {
    const before = learned.falseNotices;
    run(source, learnedDetector(params), scanMs, learned);
    perSourceFalse.push(learned.falseNotices - before);
    run(source, fixedTimer(), scanMs, baseline);
  }
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  const summary = (name: string, score: Score) => ({
    detector: name,
    outages: score.outages,
    detected: score.detected,
    detection_rate: Number((score.detected / score.outages).toFixed(4)),
    false_notices: score.falseNotices,
    false_per_source_week: Number((score.falseNotices / count).toFixed(4)),
    delay_p50_min: Number((percentile(score.delaysMs, 0.5) / 60_000).toFixed(1)),
    delay_p95_min: Number((percentile(score.delaysMs, 0.95) / 60_000).toFixed(1)),
    delay_p50_typical_gaps: Number(percentile(score.delaysInTypicalGaps, 0.5).toFixed(2)),
    delay_p95_typical_gaps: Number(percentile(score.delaysInTypicalGaps, 0.95).toFixed(2)),
  });
  const results = [summary('learned', learned), summary(`fixed timer ${FIXED_TIMER_MS / HOUR} h`, baseline)];
  const [ours, theirs] = results as [ReturnType<typeof summary>, ReturnType<typeof summary>];
  const report = {
    sources: count,
    seed,
    scan_seconds: scanMs / 1000,
    params,
    typical_gap_min: { p5: percentile(sources.map((s) => s.typicalGapMs / 60_000), 0.05).toFixed(1), p50: percentile(sources.map((s) => s.typicalGapMs / 60_000), 0.5).toFixed(1), p95: percentile(sources.map((s) => s.typicalGapMs / 60_000), 0.95).toFixed(1) },
    results,
    ratios_vs_baseline: {
      detection_rate: Number((ours.detection_rate / theirs.detection_rate).toFixed(3)),
      false_per_source_week: theirs.false_notices === 0 ? null : Number((ours.false_notices / theirs.false_notices).toFixed(3)),
    },
    sources_with_a_false_notice: perSourceFalse.filter((n) => n > 0).length,
    max_false_notices_one_source: Math.max(...perSourceFalse),
    goal_met: ours.detection_rate === 1 && ours.false_per_source_week < 1,
    run_ms: Math.round(elapsedMs),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main();
