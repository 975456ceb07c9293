/** `tag`: a hashtag/cashtag watched by recent search; `user`: an account's posts (`from:` search). */
export type SourceKind = 'tag' | 'user';

/** What the scanner watches upstream: one per distinct hashtag_norm / username_norm of served accounts. */
export interface Source {
  /** `tag:<hashtag_norm>` or `user:<username_norm>` (source_cursors.source_key). */
  key: string;
  kind: SourceKind;
  /** The lower-cased tag (no `#`) or handle (no `@`). */
  name: string;
  /** Newest post id already handled for this source; null before its first successful scan. */
  sinceId: string | null;
  /** Posts published before this instant never match the source (its oldest track's creation). */
  notBefore: Date;
  intervalSeconds: number;
  /** Failed scans in a row. */
  failures: number;
  /**
   * Search operators that narrow the source's query (`has:media`, `-is:quote`…), the ones every tracker's filters ask
   * for (query-operators.ts); absent or empty: the source is searched whole.
   */
  operators?: readonly string[];
  /** `user` sources: a tracker asks for posts mentioning the handle too, so the query holds `@handle`. */
  mentions?: boolean;
}

export function sourceKey(kind: SourceKind, name: string): string {
  return `${kind}:${name}`;
}

/** Splits `tag:btc` / `user:alice`; null for a key of another shape. */
export function parseSourceKey(key: string): { kind: SourceKind; name: string } | null {
  const match = /^(tag|user):(.+)$/s.exec(key);
  if (!match) return null;
  return { kind: match[1] as SourceKind, name: match[2] as string };
}
