/** Letters, marks, digits and `_`: what a word is made of. */
const WORD = /[\p{L}\p{M}\p{N}_]/u;
/** Scripts written without spaces between words: a boundary cannot be found there, so none is asked for. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

// Where lower-casing is not case folding (Unicode's CaseFolding.txt, full folding): ß and ẞ are ss, a final sigma
// is σ, and İ lower-cases to i with a combining dot that folding drops.
const FOLD: Record<string, string> = { ß: 'ss', ẞ: 'ss', ς: 'σ', 'i\u0307': 'i' };

/**
 * Case-folded, compatibility-normalised, runs of white space as one space: how keywords and texts are compared, so
 * `STRASSE` finds `straße` and `istanbul` finds `İstanbul`.
 */
export function foldForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/i\u0307|[ßẞς]/gu, (found) => FOLD[found] ?? found).replace(/\s+/gu, ' ');
}

/** The words of a keyword as written: a quoted phrase without its quotes, trimmed. */
export function keywordText(keyword: string): string {
  const trimmed = keyword.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1).trim() : trimmed;
}

function boundary(outside: string | undefined, inside: string): boolean {
  if (outside === undefined) return true;
  if (!WORD.test(outside) || !WORD.test(inside)) return true;
  return UNSPACED.test(outside) || UNSPACED.test(inside);
}

/** The code point that ends just before `at`, or undefined at the start. */
function codePointBefore(text: string, at: number): string | undefined {
  if (at === 0) return undefined;
  const low = text.charCodeAt(at - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1;
  return String.fromCodePoint(text.codePointAt(start) as number);
}

function codePointAt(text: string, at: number): string | undefined {
  const point = text.codePointAt(at);
  return point === undefined ? undefined : String.fromCodePoint(point);
}

/**
 * Whether `text` holds the keyword (a word or a quoted phrase), ignoring case, on word boundaries: `btc` is in
 * "#BTC up" and "btc, eth" but not in "btcusd". In scripts written without spaces a keyword matches inside a run of
 * letters. `folded` says `text` went through {@link foldForMatch} already.
 */
export function keywordMatches(keyword: string, text: string, folded = false): boolean {
  const needle = foldForMatch(keywordText(keyword));
  if (needle === '') return false;
  const haystack = folded ? text : foldForMatch(text);
  const first = codePointAt(needle, 0) as string;
  const last = codePointBefore(needle, needle.length) as string;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (boundary(codePointBefore(haystack, at), first) && boundary(codePointAt(haystack, at + needle.length), last)) return true;
  }
  return false;
}
