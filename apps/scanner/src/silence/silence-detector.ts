/**
 * The silence detector of a source (issue 16, `source_silent`): a pure function of the times a source's posts
 * were published and a clock, shared by the scanner and bench/silence-detector.ts.
 *
 * Model. A source's "typical gap" is a time-weighted quantile (the 90th: DEFAULT_SILENCE_PARAMS) of its recent gaps
 * between posts: the silence a watcher looking at a random moment finds the source in, 9 times in 10. Weighting
 * each gap by its own length makes the estimate ignore bursts (a hundred posts in a minute take a minute) and take in the source's quiet
 * hours (a night's long gaps take the night), so a diurnal source is not flagged every night. The gaps go into
 * a histogram of log-spaced buckets that forgets with a half-life, so a source that changes its pace is learned
 * again within days. The source is silent when the time since its last post exceeds
 * max(factor x typical gap, floor), once enough gaps were seen. A gap longer than that is not learned, so an
 * outage does not teach the source that such silences are normal, unless the gap before it was too (the source
 * changed its pace); a source whose typical gap is longer than
 * `maxTypicalGapSeconds` (a source posting a few times a week) is never called silent.
 */

export interface SilenceParams {
  /** How many typical gaps of silence make a source silent. */
  factor: number;
  /** The quantile of the time-weighted gap distribution taken as the typical gap (0.5: its median). */
  quantile: number;
  /** Never silent before this much time without a post, however fast the source posts. */
  floorSeconds: number;
  /** Gaps (of at least a second) seen before a source can be called silent. */
  minSamples: number;
  /** A source whose typical gap is longer than this is too sparse to be called silent. */
  maxTypicalGapSeconds: number;
  /** A gap's weight halves every this much of the source's own time (the gaps after it). */
  halfLifeSeconds: number;
}

/** The parameters the scanner uses, tuned with bench/silence-detector.ts (docs/BENCHMARKS.md). */
export const DEFAULT_SILENCE_PARAMS: Readonly<SilenceParams> = Object.freeze({
  factor: 2.8,
  quantile: 0.9,
  floorSeconds: 15 * 60,
  minSamples: 20,
  maxTypicalGapSeconds: 2 * 24 * 3600,
  halfLifeSeconds: 7 * 24 * 3600,
});

// Bucket i holds gaps of [BASE * RATIO^i, BASE * RATIO^(i+1)) seconds; the last one also everything longer.
const BASE_SECONDS = 1;
const RATIO = 1.25;
/** 1 s to about 43 days. */
export const SILENCE_BUCKETS = 70;

export interface SilenceState {
  /** Publication time (ms) of the newest post seen; null before the first. */
  lastPostAt: number | null;
  /** Seconds of gap per bucket, decayed ({@link SILENCE_BUCKETS} entries). */
  histogram: number[];
  /** Gaps of at least a second seen, not decayed. */
  samples: number;
  /** Gaps in a row longer than the silence threshold was when each ended (one alone is not learned). */
  longGaps: number;
}

export interface SilenceVerdict {
  silent: boolean;
  /** Seconds since the last post; null before the first. */
  silentForSeconds: number | null;
  /** null while too few gaps were seen. */
  typicalGapSeconds: number | null;
  /** Seconds of silence that make the source silent; null when it cannot be (too little history, too sparse). */
  thresholdSeconds: number | null;
}

export function emptySilenceState(): SilenceState {
  return { lastPostAt: null, histogram: new Array<number>(SILENCE_BUCKETS).fill(0), samples: 0, longGaps: 0 };
}

function bucketOf(gapSeconds: number): number {
  if (gapSeconds < BASE_SECONDS) return 0;
  return Math.min(SILENCE_BUCKETS - 1, Math.floor(Math.log(gapSeconds / BASE_SECONDS) / Math.log(RATIO)));
}

/** A copy of `state` that has learned from posts published at `postTimes` (ms, any order; older ones ignored). */
export function observePosts(state: SilenceState, postTimes: readonly number[], params: SilenceParams = DEFAULT_SILENCE_PARAMS): SilenceState {
  const histogram = state.histogram.length === SILENCE_BUCKETS ? [...state.histogram] : emptySilenceState().histogram;
  let { lastPostAt, samples, longGaps } = state;
  const sorted = [...postTimes].sort((a, b) => a - b);
  for (const at of sorted) {
    if (lastPostAt === null) {
      lastPostAt = at;
      continue;
    }
    if (at <= lastPostAt) continue;
    const gap = (at - lastPostAt) / 1000;
    lastPostAt = at;
    if (gap < BASE_SECONDS) continue;
    // A gap longer than the silence threshold (an outage, most likely) is not learned: one outage must not teach
    // the source that such silences are normal (weighted by its length, a single one would lift the estimate a
    // lot). Two or more such gaps in a row are a source that changed its pace, and are learned.
    const typical = typicalGapSeconds({ lastPostAt, histogram, samples, longGaps }, params);
    const threshold = typical === null ? Number.POSITIVE_INFINITY : Math.max(params.factor * typical, params.floorSeconds);
    longGaps = gap > threshold ? longGaps + 1 : 0;
    samples += 1;
    if (longGaps === 1) continue;
    const keep = Math.pow(0.5, gap / params.halfLifeSeconds);
    for (let i = 0; i < SILENCE_BUCKETS; i += 1) histogram[i] = (histogram[i] as number) * keep;
    const bucket = bucketOf(gap);
    histogram[bucket] = (histogram[bucket] as number) + gap;
  }
  return { lastPostAt, histogram, samples, longGaps };
}

/** The `quantile` of the time-weighted gap distribution, interpolated within its bucket; null with no history. */
export function typicalGapSeconds(state: SilenceState, params: SilenceParams = DEFAULT_SILENCE_PARAMS): number | null {
  if (state.samples < params.minSamples) return null;
  const total = state.histogram.reduce((sum, weight) => sum + weight, 0);
  if (!(total > 0)) return null;
  const target = total * params.quantile;
  let below = 0;
  for (let i = 0; i < state.histogram.length; i += 1) {
    const weight = state.histogram[i] as number;
    if (weight > 0 && below + weight >= target) {
      const within = (target - below) / weight;
      return BASE_SECONDS * Math.pow(RATIO, i + within);
    }
    below += weight;
  }
  return BASE_SECONDS * Math.pow(RATIO, SILENCE_BUCKETS);
}

/** Whether the source is silent at `now` (ms). */
export function silenceVerdict(state: SilenceState, now: number, params: SilenceParams = DEFAULT_SILENCE_PARAMS): SilenceVerdict {
  const silentForSeconds = state.lastPostAt === null ? null : Math.max(0, (now - state.lastPostAt) / 1000);
  const typical = typicalGapSeconds(state, params);
  if (typical === null || silentForSeconds === null || typical > params.maxTypicalGapSeconds) {
    return { silent: false, silentForSeconds, typicalGapSeconds: typical, thresholdSeconds: null };
  }
  const thresholdSeconds = Math.max(params.factor * typical, params.floorSeconds);
  return { silent: silentForSeconds > thresholdSeconds, silentForSeconds, typicalGapSeconds: typical, thresholdSeconds };
}
