/** mulberry32: a small seeded generator, so a demo run with the same seed produces the same stream. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^exponent. */
export class ZipfSampler {
  private readonly cumulative: number[];

  constructor(
    readonly size: number,
    exponent: number,
    private readonly random: () => number,
  ) {
    let total = 0;
    this.cumulative = Array.from({ length: size }, (_, rank) => (total += 1 / Math.pow(rank + 1, exponent)));
  }

  sample(): number {
    const target = this.random() * this.cumulative[this.cumulative.length - 1]!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
