/**
 * X's `text` as its author wrote it. X HTML-escapes `&`, `<` and `>` in every post text (`&amp;`, `&lt;`, `&gt;`;
 * quotes are left alone) and counts entity offsets in code points over that escaped text. Undoing the escaping
 * once moves every offset after an escape, so the offsets are carried over with it.
 */
export interface UnescapedText {
  text: string;
  /** Length of the escaped text in code points: an entity ending past it is not X's. */
  escapedLength: number;
  /** The code-point offset in `text` of a code-point offset in the escaped text. */
  offset(escapedOffset: number): number;
}

const ESCAPES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };
const identity = (offset: number) => offset;

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

export function unescapeXText(escaped: string): UnescapedText {
  // Most posts hold no escape: no copy, no offset table.
  if (!escaped.includes('&')) return { text: escaped, escapedLength: codePointLength(escaped), offset: identity };
  const points = Array.from(escaped);
  const out: string[] = [];
  // offsets[i]: where escaped code point i lands in the text; one more entry for the end.
  const offsets = new Array<number>(points.length + 1);
  let i = 0;
  while (i < points.length) {
    offsets[i] = out.length;
    const point = points[i] as string;
    if (point === '&') {
      const four = points.slice(i, i + 4).join('');
      const five = four + (points[i + 4] ?? '');
      const escape = four === '&lt;' || four === '&gt;' ? four : five === '&amp;' ? five : null;
      if (escape !== null) {
        for (let j = 1; j < escape.length; j += 1) offsets[i + j] = out.length;
        out.push(ESCAPES[escape] as string);
        i += escape.length;
        continue;
      }
    }
    out.push(point);
    i += 1;
  }
  offsets[points.length] = out.length;
  return { text: out.join(''), escapedLength: points.length, offset: (escapedOffset) => offsets[escapedOffset] ?? out.length };
}

/** An entity moved `by` code points: a retweet's original placed after `RT @author: `. */
export function shiftEntity<T extends { start: number; end: number }>(entity: T, by: number): T {
  return { ...entity, start: entity.start + by, end: entity.end + by };
}

export { codePointLength };
