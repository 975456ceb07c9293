// X post ids are snowflakes: the creation millisecond since X's epoch (2010-11-04T01:42:54.657Z) in the
// bits above the low 22. That lets a creation time stand in for a post id as a search lower bound.
const X_EPOCH_MS = 1288834974657n;
const SEQUENCE_BITS = 22n;

/** The smallest id a post created at or after `ms` can have. */
export function snowflakeFloor(ms: number): bigint {
  const since = BigInt(Math.floor(ms)) - X_EPOCH_MS;
  return since > 0n ? since << SEQUENCE_BITS : 0n;
}

/** The creation time a snowflake id encodes, in milliseconds since the Unix epoch. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> SEQUENCE_BITS) + X_EPOCH_MS);
}

