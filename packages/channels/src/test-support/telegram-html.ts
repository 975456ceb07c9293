/**
 * A small model of the Bot API's HTML parse mode (core.telegram.org/bots/api#html-style), strict where
 * Telegram is: only its tags, matching end tags, and a literal "<" is an error. Returns the text the
 * recipient sees, or the error Telegram answers.
 */
const TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export type ParsedHtml = { ok: true; text: string } | { ok: false; error: string };

function entity(html: string, at: number): { char: string; length: number } | null {
  const match = /^&(?:(lt|gt|amp|quot)|#(\d+)|#x([0-9a-f]+));/i.exec(html.slice(at, at + 12));
  if (!match) return null;
  const char = match[1] ? NAMED[match[1].toLowerCase()]! : String.fromCodePoint(Number.parseInt(match[2] ?? match[3]!, match[2] ? 10 : 16));
  return { char, length: match[0].length };
}

export function parseTelegramHtml(html: string): ParsedHtml {
  const fail = (what: string, at: number): ParsedHtml => ({
    ok: false,
    error: `Bad Request: can't parse entities: ${what} at byte offset ${Buffer.byteLength(html.slice(0, at))}`,
  });
  const open: string[] = [];
  let text = '';
  let at = 0;
  while (at < html.length) {
    const char = html[at]!;
    if (char === '&') {
      // Telegram keeps an "&" that starts no known entity as a literal character.
      const decoded = entity(html, at);
      text += decoded ? decoded.char : '&';
      at += decoded ? decoded.length : 1;
      continue;
    }
    if (char !== '<') {
      text += char;
      at += 1;
      continue;
    }
    const end = html.indexOf('>', at);
    if (end < 0) return fail('Unclosed start tag', at);
    const tag = html.slice(at + 1, end);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim().toLowerCase();
      if (open.pop() !== name) return fail(`Unmatched end tag "${name}"`, at);
    } else {
      const name = /^[a-z-]+/i.exec(tag)?.[0]?.toLowerCase() ?? '';
      if (!TAGS.has(name)) return fail(`Unsupported start tag "${name}"`, at);
      const attributes = tag.slice(name.length);
      if (!/^(\s+[a-z-]+="[^"<]*")*\s*$/i.test(attributes)) return fail('Expected equal sign in declaration of an attribute', at);
      if (name === 'a' && !/\shref="[^"]+"/.test(attributes)) return fail('Can\'t find link URL', at);
      open.push(name);
    }
    at = end + 1;
  }
  if (open.length > 0) return fail(`Can't find end tag corresponding to start tag "${open.at(-1)}"`, html.length);
  return { ok: true, text };
}
