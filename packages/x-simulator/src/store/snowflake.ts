/** X's snowflake epoch (2010-11-04T01:42:54.657Z): ids carry milliseconds since it in their top bits. */
const TWITTER_EPOCH = 1288834974657n;
const SEQUENCE_BITS = 22n;

/**
 * Hands out numeric post ids shaped like X's: 64-bit, increasing with creation time, unique. A post created
 * "now" always gets a larger id than every earlier one; a backdated post gets an id from its own millisecond.
 */
export class SnowflakeIds {
  private last = 0n;

  constructor(private readonly taken: (id: bigint) => boolean) {}

  next(createdAtMs: number): bigint {
    const base = (BigInt(Math.floor(createdAtMs)) - TWITTER_EPOCH) << SEQUENCE_BITS;
    const backdated = base + (1n << SEQUENCE_BITS) <= this.last;
    let id = backdated || base > this.last ? base : this.last + 1n;
    while (this.taken(id)) id += 1n;
    if (!backdated) this.last = id;
    return id;
  }

  reset(): void {
    this.last = 0n;
  }
}
