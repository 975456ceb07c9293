import { codePointLength, codePointSlice } from './code-points';
import { extractEntities, mergeEntities, shiftEntities, type PostEntities, type PostLink } from './entities';

/** A raw (not HTML-escaped) text and its entities, indices in code points over it. */
export interface PostText {
  text: string;
  entities: PostEntities;
}

/** A post over 280 characters is a long post: `text` shows its start, `note_tweet` the whole (X's docs). */
export const LONG_POST_LIMIT = 280;
// About the first 275 characters, then "… " and the t.co link to the whole post.
const LONG_POST_SHOWN = 275;
// A retweet's `text` is `RT @author: ` and the original, cut to the 140 characters of the old post limit.
const RETWEET_SHOWN = 140;

/**
 * The first `keep` code points of `text` with trailing whitespace dropped, and how many code points that is.
 * A cut never splits a link: one that would be split is left out.
 */
function cutAt(text: string, keep: number, entities: PostEntities): { text: string; kept: number } {
  const split = entities.urls.find((url) => url.start < keep && url.end > keep);
  const head = codePointSlice(text, 0, split ? split.start : keep).trimEnd();
  return { text: head, kept: codePointLength(head) };
}

/**
 * A retweet's texts. The whole one (`RT @author: ` and the original's whole text) is what search reads; the
 * shown one, when the whole is over 140 code points, is its first 139 with trailing whitespace dropped and
 * `…` (the recordings: 140 code points counted on the unescaped text), with the entities that end before the
 * cut. A link is cut like any text here (`https://t.…` in the recordings).
 */
export function retweetText(originalAuthor: string, original: PostText): { whole: PostText; shown: PostText | null } {
  const prefix = `RT @${originalAuthor}: `;
  const prefixLength = codePointLength(prefix);
  const whole: PostText = {
    text: `${prefix}${original.text}`,
    entities: mergeEntities(extractEntities(prefix), shiftEntities(original.entities, prefixLength)),
  };
  if (codePointLength(whole.text) <= RETWEET_SHOWN) return { whole, shown: null };
  const head = codePointSlice(whole.text, 0, RETWEET_SHOWN - 1).trimEnd();
  const kept = codePointLength(head);
  return { whole, shown: { text: `${head}…`, entities: shiftEntities(whole.entities, 0, kept) } };
}

export function isLongText(text: string): boolean {
  return codePointLength(text) > LONG_POST_LIMIT;
}

/** What a long post shows as `text`: its start, `…`, a space and the t.co link to the whole post. */
export function longPostShown(whole: PostText, noteLink: PostLink): PostText {
  const { text, kept } = cutAt(whole.text, LONG_POST_SHOWN, whole.entities);
  const shown = `${text}… ${noteLink.url}`;
  const linkStart = kept + 2;
  return {
    text: shown,
    entities: mergeEntities(shiftEntities(whole.entities, 0, kept), {
      hashtags: [],
      cashtags: [],
      mentions: [],
      urls: [{ start: linkStart, end: linkStart + noteLink.url.length, link: noteLink }],
    }),
  };
}
