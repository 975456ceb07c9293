import { DEFAULT_SILENCE_PARAMS, emptySilenceState, observePosts, silenceVerdict, typicalGapSeconds, type SilenceParams } from './silence-detector';

const MIN = 60_000;
const params: SilenceParams = { ...DEFAULT_SILENCE_PARAMS, floorSeconds: 60 };

/** Posts every `gapMs` from `start`, `count` of them. */
const steady = (start: number, gapMs: number, count: number) => Array.from({ length: count }, (_, i) => start + i * gapMs);

describe('silence detector', () => {
  it('learns a steady source\'s gap and calls it silent only past factor x that gap', () => {
    const posts = steady(0, 10 * MIN, 60);
    const state = observePosts(emptySilenceState(), posts, params);
    const typical = typicalGapSeconds(state, params) as number;
    // Every gap is 600 s: the estimate lies within the histogram bucket holding 600 s (buckets 25 % wide).
    expect(typical).toBeGreaterThan(480);
    expect(typical).toBeLessThan(750);
    const last = posts.at(-1) as number;
    const threshold = params.factor * typical;
    expect(silenceVerdict(state, last + (threshold - 5) * 1000, params)).toMatchObject({ silent: false, thresholdSeconds: threshold });
    expect(silenceVerdict(state, last + (threshold + 5) * 1000, params)).toMatchObject({ silent: true });
  });

  it('never calls a source silent before min samples gaps, nor one sparser than the longest typical gap', () => {
    const few = observePosts(emptySilenceState(), steady(0, MIN, params.minSamples), params);
    expect(few.samples).toBe(params.minSamples - 1);
    expect(silenceVerdict(few, 365 * 24 * 60 * MIN, params)).toMatchObject({ silent: false, thresholdSeconds: null, typicalGapSeconds: null });

    const sparse = observePosts(emptySilenceState(), steady(0, 3 * 24 * 60 * MIN, 30), params);
    expect(silenceVerdict(sparse, 365 * 24 * 60 * MIN, params)).toMatchObject({ silent: false, thresholdSeconds: null });
  });

  it('keeps the floor for a fast source', () => {
    const state = observePosts(emptySilenceState(), steady(0, 5_000, 100), { ...params, floorSeconds: 900 });
    const last = 99 * 5_000;
    expect(silenceVerdict(state, last + 800_000, { ...params, floorSeconds: 900 }).silent).toBe(false);
    expect(silenceVerdict(state, last + 901_000, { ...params, floorSeconds: 900 })).toMatchObject({ silent: true, thresholdSeconds: 900 });
  });

  it('weights gaps by their length: a burst does not make a slow source look fast', () => {
    const slow = steady(0, 30 * MIN, 40);
    const burst = steady((slow.at(-1) as number) + 60_000, 1_000, 200);
    const before = typicalGapSeconds(observePosts(emptySilenceState(), slow, params), params) as number;
    const after = typicalGapSeconds(observePosts(emptySilenceState(), [...slow, ...burst], params), params) as number;
    expect(after / before).toBeGreaterThan(0.9);
  });

  it('does not learn one outage-long gap, but learns a pace that changed (two long gaps in a row)', () => {
    const posts = steady(0, 10 * MIN, 60);
    const learned = observePosts(emptySilenceState(), posts, params);
    const typical = typicalGapSeconds(learned, params) as number;
    const outageEnd = (posts.at(-1) as number) + 10 * 60 * MIN;
    const afterOutage = observePosts(learned, [outageEnd], params);
    expect(afterOutage.longGaps).toBe(1);
    expect(typicalGapSeconds(afterOutage, params)).toBeCloseTo(typical, 0);

    const slower = observePosts(afterOutage, [outageEnd + 10 * 60 * MIN], params);
    expect(slower.longGaps).toBe(2);
    expect(typicalGapSeconds(slower, params) as number).toBeGreaterThan(2 * typical);
    // A gap back within the threshold ends the run.
    expect(observePosts(slower, [outageEnd + 10 * 60 * MIN + 60_000], params).longGaps).toBe(0);
  });

  it('ignores posts older than the newest it saw, and takes them in any order', () => {
    const posts = steady(0, 10 * MIN, 40);
    const shuffled = [...posts].reverse();
    const a = observePosts(emptySilenceState(), posts, params);
    const b = observePosts(emptySilenceState(), shuffled, params);
    expect(b).toEqual(a);
    expect(observePosts(a, [posts[3] as number], params)).toEqual(a);
  });
});
