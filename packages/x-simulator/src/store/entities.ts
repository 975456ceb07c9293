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

export interface PostEntities {
  hashtags: TagEntity[];
  cashtags: TagEntity[];
  mentions: MentionEntity[];
}

// Simplified twitter-text rules. A hashtag is # or ＃ after a non-word character, then letters, marks,
// digits or _ with at least one non-digit. A cashtag is $ after whitespace, then 1–6 letters with an optional
// ._ suffix of 1–2 letters. A mention is @ after a non-word character, then 1–15 of [A-Za-z0-9_].
const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&])([#＃])([\p{L}\p{M}\p{N}_]+)/gu;
const CASHTAG = /(^|\s)(\$)([A-Za-z]{1,6}(?:[._][A-Za-z]{1,2})?)(?![\p{L}\p{N}_])/gu;
const MENTION = /(^|[^A-Za-z0-9_!#$%&*@＠])([@＠])([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_@])/gu;

/** X counts entity indices in Unicode code points, not UTF-16 units: an emoji before a tag moves it by one. */
function codePointIndex(text: string, utf16Index: number): number {
  let count = 0;
  for (let i = 0; i < utf16Index; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < utf16Index) i += 1;
    count += 1;
  }
  return count;
}

function extract(text: string, pattern: RegExp, accept: (body: string) => boolean): { start: number; end: number; body: string }[] {
  const found: { start: number; end: number; body: string }[] = [];
  for (const match of text.matchAll(pattern)) {
    const [, before = '', sigil = '', body = ''] = match;
    if (!accept(body)) continue;
    const startUnits = (match.index ?? 0) + before.length;
    const endUnits = startUnits + sigil.length + body.length;
    found.push({ start: codePointIndex(text, startUnits), end: codePointIndex(text, endUnits), body });
  }
  return found;
}

/** Hashtag, cashtag and mention entities of a post text, with inclusive start / exclusive end indices over `text`. */
export function extractEntities(text: string): PostEntities {
  return {
    hashtags: extract(text, HASHTAG, (body) => !/^\d+$/.test(body)).map(({ start, end, body }) => ({ start, end, tag: body })),
    cashtags: extract(text, CASHTAG, () => true).map(({ start, end, body }) => ({ start, end, tag: body })),
    mentions: extract(text, MENTION, () => true).map(({ start, end, body }) => ({ start, end, username: body })),
  };
}
