import type { SourceFilters } from './filters';
import { foldForMatch, keywordMatches } from './keyword-match';

/** What a post and its author showed when it was detected: all a filter reads. */
export interface PostFacts {
  /** The whole text as written (X's escaping undone, a long post's whole text). */
  text: string;
  /**
   * `text` through {@link foldForMatch}, when the caller keeps it: a post judged for many trackers is folded once
   * (a getter computing it on first use does).
   */
  readonly folded?: string;
  /** A photo, GIF or video. */
  hasMedia: boolean;
  /** A link other than the one to the post's own photo or video. */
  hasLinks: boolean;
  isQuote: boolean;
  authorVerified: boolean;
  /** Null when X did not say: such a post fails any `min_followers` above 0. */
  authorFollowers: number | null;
}

/** Whether a post passes a source's filters; no filters (null) passes everything. Pure. */
export function passesFilters(filters: SourceFilters | null, post: PostFacts): boolean {
  if (filters === null) return true;
  if (filters.has_media && !post.hasMedia) return false;
  if (filters.has_links && !post.hasLinks) return false;
  if (filters.exclude_quotes && post.isQuote) return false;
  if (filters.verified_only && !post.authorVerified) return false;
  if (filters.min_followers > 0 && (post.authorFollowers ?? -1) < filters.min_followers) return false;
  if (filters.keywords_any.length === 0 && filters.keywords_all.length === 0 && filters.keywords_none.length === 0) return true;
  const text = post.folded ?? foldForMatch(post.text);
  const has = (keyword: string) => keywordMatches(keyword, text, true);
  if (filters.keywords_none.some(has)) return false;
  if (!filters.keywords_all.every(has)) return false;
  return filters.keywords_any.length === 0 || filters.keywords_any.some(has);
}
