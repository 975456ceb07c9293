// X counts text length and entity indices in Unicode code points, not UTF-16 units: an emoji is one.

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** The code points [start, end) of `text`. */
export function codePointSlice(text: string, start: number, end?: number): string {
  return Array.from(text).slice(start, end).join('');
}

/** The code-point index of a UTF-16 index into `text`. */
export function codePointIndex(text: string, utf16Index: number): number {
  let count = 0;
  for (let i = 0; i < utf16Index; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < utf16Index) i += 1;
    count += 1;
  }
  return count;
}
