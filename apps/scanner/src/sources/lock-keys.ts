/**
 * First key of every advisory lock the scanner takes (pg_advisory_lock(class, id)): with id 0 it guards the
 * source sync, with a positive id it is one scan cycle's claim. Any constant works as long as no other part
 * of Hashwatch uses it as a first key. The others: STREAM_LOCK_CLASS (stream/stream-holder.ts), STREAM_GAP_LOCK_CLASS
 * (stream/backfill.ts) and @hashwatch/accounts SOURCE_LOCK_CLASS (one lock per source, held by an erasure of the
 * source and tried by the source sync before it writes the source's cursor).
 */
export const SCANNER_LOCK_CLASS = 0x5ca7;
