/**
 * First key of every advisory lock the scanner takes (pg_advisory_lock(class, id)): with id 0 it guards the
 * source sync, with a positive id it is one scan cycle's claim. Any constant works as long as no other part
 * of Hashwatch uses it as a first key.
 */
export const SCANNER_LOCK_CLASS = 0x5ca7;
