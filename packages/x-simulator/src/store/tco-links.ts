import { createHash } from 'node:crypto';
import { codePointLength, codePointSlice } from './code-points';
import type { PostLink } from './entities';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// An address the author typed: X wraps each in a t.co link. Trailing punctuation is the sentence's, not the URL's.
const TYPED_URL = /https?:\/\/[^\s<>"]+/g;
const TRAILING_PUNCTUATION = /[.,;:!?'")\]}]+$/;

/** A t.co link, https://t.co/ and 10 base-62 characters, drawn from `seed` (the same seed, the same link). */
export function tcoUrl(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let code = '';
  for (let i = 0; i < 10; i += 1) code += BASE62[digest[i]! % 62];
  return `https://t.co/${code}`;
}

/**
 * How X displays an expanded URL: no scheme, no `www.`, and at most 15 characters after the host, then `…`
 * (checked against every link of the recorded answers).
 */
export function displayUrl(expanded: string): string {
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?:www\.)?([^/?#]+)(.*)$/.exec(expanded);
  if (!match) return expanded;
  const host = match[1]!;
  const rest = match[2] === '/' ? '' : match[2]!;
  return codePointLength(rest) > 15 ? `${host}${codePointSlice(rest, 0, 15)}…` : `${host}${rest}`;
}

/** The link of an expanded URL, its t.co address drawn from `seed`. */
export function linkTo(expandedUrl: string, seed: string): PostLink {
  return { url: tcoUrl(seed), expandedUrl, displayUrl: displayUrl(expandedUrl) };
}

/** Replaces every http(s) address in `text` by a t.co link, as X does when a post is published. */
export function wrapTypedUrls(text: string, seed: string): { text: string; links: PostLink[] } {
  const links: PostLink[] = [];
  const wrapped = text.replace(TYPED_URL, (typed) => {
    const trailing = TRAILING_PUNCTUATION.exec(typed)?.[0] ?? '';
    const address = typed.slice(0, typed.length - trailing.length);
    if (address.length <= 'https://'.length) return typed;
    const link = linkTo(address, `${seed}:${links.length}`);
    links.push(link);
    return `${link.url}${trailing}`;
  });
  return { text: wrapped, links };
}
