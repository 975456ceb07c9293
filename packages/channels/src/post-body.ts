import type { AlertMedia, AlertUrl } from './alert';
import { ELLIPSIS, fitText, type Measure } from './text-fit';

/**
 * A run of the post text, or one of its links. A link is never cut: a trimmed body keeps it whole or leaves
 * it out, so no markup (`[label](url)`, `<url|label>`, `<a href>`) is ever split.
 */
export type BodyPart = { kind: 'text'; text: string } | { kind: 'link'; url: string; label: string };

/** The image a card shows: a photo, or the preview frame of a video or GIF. */
export interface CardImage {
  url: string;
  /** X's media type (`photo`, `video`, `animated_gif`). */
  type: string;
  /** The author's description of the image, or null when none was written. */
  alt: string | null;
}

// A media link is how X writes a photo or video into the text: `pic.x.com/…` (formerly `pic.twitter.com/…`)
// pointing at the post's own /photo/1 or /video/1 page.
const MEDIA_HOST = /^(?:pic\.x\.com|pic\.twitter\.com)\//i;
const MEDIA_PAGE = /\/status\/\d+\/(?:photo|video)\/\d+\/?$/;
const WEB_URL = /^https?:\/\/\S+$/i;

function isMediaLink(url: AlertUrl): boolean {
  return MEDIA_HOST.test(url.display_url) || MEDIA_PAGE.test(url.expanded_url);
}

/** The first media item that has an image: a photo's own url, a video's or GIF's preview frame. */
export function cardImage(media: readonly AlertMedia[]): CardImage | null {
  for (const item of media) {
    const url = item.type === 'photo' ? (item.url ?? item.preview_image_url) : (item.preview_image_url ?? item.url);
    if (url && WEB_URL.test(url)) return { url, type: item.type, alt: item.alt_text?.trim() || null };
  }
  return null;
}

/** Appends text to `parts`, joined to a text part that ends them. */
function pushText(parts: BodyPart[], text: string): void {
  if (text === '') return;
  const last = parts.at(-1);
  if (last?.kind === 'text') parts[parts.length - 1] = { kind: 'text', text: last.text + text };
  else parts.push({ kind: 'text', text });
}

/** `parts` without the white space that ends them. */
function trimEnd(parts: BodyPart[]): BodyPart[] {
  const last = parts.at(-1);
  if (last?.kind !== 'text') return parts;
  const text = last.text.trimEnd();
  return text === '' ? parts.slice(0, -1) : [...parts.slice(0, -1), { kind: 'text', text }];
}

/**
 * Splits `text` at the t.co links listed in `urls`; each becomes a link to its `expanded_url` labelled with its
 * `display_url`. A t.co link that `urls` does not list stays text. With `dropMedia`, a media link that ends the
 * text is left out (the card shows the image instead).
 */
export function splitLinks(text: string, urls: readonly AlertUrl[], options: { dropMedia: boolean }): BodyPart[] {
  // Longest first, so https://t.co/abc never matches the start of https://t.co/abcd.
  const known = urls.filter((url) => url.url !== '').sort((a, b) => b.url.length - a.url.length);
  const parts: BodyPart[] = [];
  const media = new Set<BodyPart>();
  let plain = '';
  for (let at = 0; at < text.length; ) {
    const hit = text.startsWith('https://t.co/', at)
      ? known.find((url) => text.startsWith(url.url, at) && !/[A-Za-z0-9]/.test(text[at + url.url.length] ?? ''))
      : undefined;
    if (!hit) {
      plain += text[at];
      at += 1;
      continue;
    }
    pushText(parts, plain);
    plain = '';
    const link: BodyPart = { kind: 'link', url: hit.expanded_url || hit.url, label: hit.display_url || hit.expanded_url || hit.url };
    if (isMediaLink(hit)) media.add(link);
    parts.push(link);
    at += hit.url.length;
  }
  pushText(parts, plain);
  if (!options.dropMedia) return parts;

  const words = trimEnd(parts);
  const last = words.at(-1);
  return last && media.has(last) ? trimEnd(words.slice(0, -1)) : parts;
}

/** The body as one string, links written as `link(label, url)`. */
export function partsText(parts: readonly BodyPart[], link: (label: string, url: string) => string): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : link(part.label, part.url))).join('');
}

/** The first link of the body, or undefined. */
export function firstLink(parts: readonly BodyPart[]): string | undefined {
  return parts.find((part) => part.kind === 'link')?.url;
}

type Unit = { kind: 'char'; char: string } | { kind: 'link'; part: BodyPart };

function partsOf(units: readonly Unit[]): BodyPart[] {
  const parts: BodyPart[] = [];
  for (const unit of units) {
    if (unit.kind === 'link') parts.push(unit.part);
    else pushText(parts, unit.char);
  }
  return parts;
}

/** `units[0..count)` with trailing white space removed and an ellipsis appended. */
function cutAt(units: readonly Unit[], count: number): BodyPart[] {
  const parts = trimEnd(partsOf(units.slice(0, count)));
  // After a link, a space keeps the ellipsis out of the address where a plain-text reader links it.
  pushText(parts, parts.at(-1)?.kind === 'link' ? ` ${ELLIPSIS}` : ELLIPSIS);
  return parts;
}

/**
 * The longest prefix of `parts` (whole code points of text, whole links) that, with an ellipsis appended,
 * measures at most `budget` as `measure` sees it (the rendered card). Returns `parts` when they already fit,
 * and no parts when not even the ellipsis fits.
 */
export function fitParts(parts: readonly BodyPart[], budget: number, measure: (parts: BodyPart[]) => number): BodyPart[] {
  if (measure([...parts]) <= budget) return [...parts];
  const units: Unit[] = parts.flatMap((part): Unit[] =>
    part.kind === 'link' ? [{ kind: 'link', part }] : Array.from(part.text, (char): Unit => ({ kind: 'char', char })),
  );
  let low = 0;
  let high = units.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(cutAt(units, middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  const best = cutAt(units, low);
  return measure(best) <= budget ? best : [];
}

/**
 * Renders a card around its body and its quoted post's text, trimming only those two until the whole measures
 * at most `limit`. The quoted text gives way first, down to `quoteShare` of the limit, then the body.
 */
export function fitCard(
  parts: readonly BodyPart[],
  quoteText: string,
  limit: number,
  render: (parts: readonly BodyPart[], quoteText: string) => string,
  measure: Measure,
  quoteShare = 0.25,
): string {
  const whole = render(parts, quoteText);
  if (measure(whole) <= limit) return whole;
  let quote = quoteText;
  if (quote !== '') {
    const withoutQuote = measure(render(parts, ''));
    const quoteSize = (candidate: string) => measure(render([], candidate)) - measure(render([], ''));
    const room = Math.max(limit - withoutQuote, Math.floor(limit * quoteShare));
    quote = fitText(quote, room, quoteSize);
  }
  return render(fitParts(parts, limit, (candidate) => measure(render(candidate, quote))), quote);
}

