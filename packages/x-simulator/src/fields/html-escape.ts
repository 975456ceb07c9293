import type { PostEntities } from '../store/entities';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * X sends post text HTML-escaped: `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;`; quotes stay as they are.
 * Entity indices count code points of the escaped text, so each one moves by what was added before it.
 */
export function escapeText(text: string, entities: PostEntities): { text: string; entities: PostEntities } {
  // shift[i]: code points added before raw code point i.
  const shift: number[] = [0];
  let escaped = '';
  let added = 0;
  for (const ch of text) {
    const replacement = ESCAPES[ch];
    escaped += replacement ?? ch;
    if (replacement) added += replacement.length - 1;
    shift.push(added);
  }
  const move = <T extends { start: number; end: number }>(list: readonly T[]): T[] =>
    list.map((entity) => ({ ...entity, start: entity.start + (shift[entity.start] ?? added), end: entity.end + (shift[entity.end] ?? added) }));
  return {
    text: escaped,
    entities: { hashtags: move(entities.hashtags), cashtags: move(entities.cashtags), mentions: move(entities.mentions), urls: move(entities.urls) },
  };
}

/** The raw text of an escaped one: what a recorded answer's `text` was before X escaped it. */
export function unescapeText(escaped: string): string {
  return escaped.replace(/&(amp|lt|gt);/g, (_match, name: string) => ({ amp: '&', lt: '<', gt: '>' })[name as 'amp' | 'lt' | 'gt']);
}
