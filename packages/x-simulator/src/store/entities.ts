import { codePointIndex } from './code-points';

export interface TagEntity {
  start: number;
  end: number;
  tag: string;
}

export interface MentionEntity {
  start: number;
  end: number;
  username: string;
}

/** A t.co link of a post and what it stands for. */
export interface PostLink {
  /** The t.co link as it stands in the text, e.g. https://t.co/uXqSAGWkWJ. */
  url: string;
  expandedUrl: string;
  displayUrl: string;
  /** Set on the link X appends for a post's media: it points at the post's photo or video page. */
  mediaKey?: string;
  /** What X adds for some links (unwound_url, title, description, images, status): kept from a recording, never invented. */
  extra?: Record<string, unknown>;
}

export interface UrlEntity {
  start: number;
  end: number;
  link: PostLink;
}

export interface PostEntities {
  hashtags: TagEntity[];
  cashtags: TagEntity[];
  mentions: MentionEntity[];
  urls: UrlEntity[];
}

// Simplified twitter-text rules. A hashtag is # or ＃ after a non-word character, then letters, marks,
// digits or _ with at least one non-digit. A cashtag is $ after whitespace, then 1–6 letters with an optional
// ._ suffix of 1–2 letters. A mention is @ after a non-word character, then 1–15 of [A-Za-z0-9_].
const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&])([#＃])([\p{L}\p{M}\p{N}_]+)/gu;
const CASHTAG = /(^|\s)(\$)([A-Za-z]{1,6}(?:[._][A-Za-z]{1,2})?)(?![\p{L}\p{N}_])/gu;
const MENTION = /(^|[^A-Za-z0-9_!#$%&*@＠])([@＠])([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_@])/gu;

interface Found {
  start: number;
  end: number;
  body: string;
}

function extract(text: string, pattern: RegExp, accept: (body: string) => boolean): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(pattern)) {
    const [, before = '', sigil = '', body = ''] = match;
    if (!accept(body)) continue;
    const startUnits = (match.index ?? 0) + before.length;
    const endUnits = startUnits + sigil.length + body.length;
    found.push({ start: codePointIndex(text, startUnits), end: codePointIndex(text, endUnits), body });
  }
  return found;
}

/** Every place a link's t.co address stands in the text, in text order. */
function locateLinks(text: string, links: readonly PostLink[]): UrlEntity[] {
  const urls: UrlEntity[] = [];
  for (const link of links) {
    for (let at = text.indexOf(link.url); at >= 0; at = text.indexOf(link.url, at + link.url.length)) {
      // A longer address that merely starts with this one is another link.
      if (/[A-Za-z0-9]/.test(text.charAt(at + link.url.length))) continue;
      const start = codePointIndex(text, at);
      urls.push({ start, end: start + link.url.length, link });
    }
  }
  return urls.sort((a, b) => a.start - b.start);
}

/**
 * Hashtag, cashtag, mention and URL entities of a post text, with inclusive start / exclusive end indices in
 * code points over `text`. URLs are the t.co links of `links` found in the text; a tag inside a link is none.
 */
export function extractEntities(text: string, links: readonly PostLink[] = []): PostEntities {
  const urls = locateLinks(text, links);
  const outside = (entity: Found) => !urls.some((url) => entity.start < url.end && url.start < entity.end);
  return {
    hashtags: extract(text, HASHTAG, (body) => !/^\d+$/.test(body)).filter(outside).map(({ start, end, body }) => ({ start, end, tag: body })),
    cashtags: extract(text, CASHTAG, () => true).filter(outside).map(({ start, end, body }) => ({ start, end, tag: body })),
    mentions: extract(text, MENTION, () => true).filter(outside).map(({ start, end, body }) => ({ start, end, username: body })),
    urls,
  };
}

/** Entities moved `by` code points, keeping those that end at or before `limit` (after the move). */
export function shiftEntities(entities: PostEntities, by: number, limit = Infinity): PostEntities {
  const keep = <T extends { start: number; end: number }>(list: readonly T[]): T[] =>
    list.map((entity) => ({ ...entity, start: entity.start + by, end: entity.end + by })).filter((entity) => entity.end <= limit);
  return { hashtags: keep(entities.hashtags), cashtags: keep(entities.cashtags), mentions: keep(entities.mentions), urls: keep(entities.urls) };
}

export function mergeEntities(a: PostEntities, b: PostEntities): PostEntities {
  const byStart = <T extends { start: number }>(list: T[]): T[] => list.sort((x, y) => x.start - y.start);
  return {
    hashtags: byStart([...a.hashtags, ...b.hashtags]),
    cashtags: byStart([...a.cashtags, ...b.cashtags]),
    mentions: byStart([...a.mentions, ...b.mentions]),
    urls: byStart([...a.urls, ...b.urls]),
  };
}
