import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { SimReplay } from './x-sim-client';

// Real X answers recorded from the live API (its README says what each shows); CI lays shared/ beside the clone.
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const RECORDINGS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'reference', 'x-recorded');

/* The parts of a recorded answer the expectations read; everything else is left to the simulator. */
const urlEntity = z.object({ url: z.string(), expanded_url: z.string(), display_url: z.string() });
const recordedPost = z.object({
  id: z.string(),
  text: z.string(),
  author_id: z.string().optional(),
  lang: z.string().optional(),
  referenced_tweets: z.array(z.object({ type: z.string(), id: z.string() })).optional(),
  entities: z.object({ urls: z.array(urlEntity).optional() }).optional(),
  note_tweet: z.object({ text: z.string(), entities: z.object({ urls: z.array(urlEntity).optional() }).optional() }).optional(),
  attachments: z.object({ media_keys: z.array(z.string()).optional() }).optional(),
});
export const recordedAnswerSchema = z.object({
  data: z.union([z.array(recordedPost), recordedPost]),
  includes: z
    .object({
      tweets: z.array(recordedPost).optional(),
      users: z.array(z.object({ id: z.string(), username: z.string(), name: z.string() })).optional(),
      media: z
        .array(
          z.object({
            media_key: z.string(),
            type: z.string(),
            url: z.string().optional(),
            preview_image_url: z.string().optional(),
            width: z.number().optional(),
            height: z.number().optional(),
            alt_text: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type RecordedAnswer = z.infer<typeof recordedAnswerSchema>;
type RecordedPost = z.infer<typeof recordedPost>;

/** One recorded answer body, e.g. `tweepy__home_timeline` (no extension), as X sent it. */
export function recordedAnswer(name: string): unknown {
  return JSON.parse(readFileSync(path.join(RECORDINGS_DIR, `${name}.json`), 'utf8'));
}

/** X's escaping of `text` (the recordings' README): only &, < and >. */
export const escapeLikeX = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** X's escaping undone exactly once: `&amp;lt;` (an author who typed `&lt;`) stays `&lt;`. */
export const unescapeOnce = (text: string) => text.replace(/&(amp|lt|gt);/g, (_whole, name: string) => ({ amp: '&', lt: '<', gt: '>' })[name]!);
const codePoints = (text: string) => [...text].length;

/**
 * A long post in the shape X documents (no recording has one): `text` cut at about 275 characters with `…` and a
 * t.co link to the post's page, the whole text with its own entities in `note_tweet`, both escaped as X escapes;
 * with a photo, and an author whose name has an `&`. `written` is the whole text as its author wrote it.
 */
export function longPostAnswer(id: string, tag: string): { body: unknown; written: string } {
  const authorId = '1745000000000000900';
  const link = { url: 'https://t.co/e2eLong001', expanded_url: 'https://example.com/long-posts?view=full&lang=en', display_url: 'example.com/long-posts?…' };
  const written =
    `#${tag} Long posts arrive cut at 280 characters, the whole text in note_tweet. Fish & chips < steak > tofu, Q&A at 5 & 6. ` +
    'Every word after the cut has to reach the feed and each channel. '.repeat(5) +
    `Details: ${link.url} and that is the end.`;
  const whole = escapeLikeX(written);
  const linkStart = codePoints(whole.slice(0, whole.indexOf(link.url)));
  const cut = `${escapeLikeX([...written].slice(0, 270).join('').trimEnd())}…`;
  const pageLink = { url: 'https://t.co/e2eLong000', expanded_url: `https://twitter.com/i/web/status/${id}`, display_url: 'twitter.com/i/web/status/1…' };
  const text = `${cut} ${pageLink.url}`;
  const hashtag = { start: 0, end: codePoints(tag) + 1, tag };
  const mediaKey = '3_1745000000000000777';
  const post = {
    id,
    author_id: authorId,
    created_at: '2024-01-10T12:00:00.000Z',
    lang: 'en',
    text,
    entities: { hashtags: [hashtag], urls: [{ start: codePoints(cut) + 1, end: codePoints(text), ...pageLink }] },
    note_tweet: { text: whole, entities: { hashtags: [hashtag], urls: [{ start: linkStart, end: linkStart + codePoints(link.url), ...link }] } },
    attachments: { media_keys: [mediaKey] },
    edit_history_tweet_ids: [id],
    edit_controls: { edits_remaining: 5, is_edit_eligible: true, editable_until: '2024-01-10T12:30:00.000Z' },
    public_metrics: { retweet_count: 0, reply_count: 0, like_count: 0, quote_count: 0 },
  };
  const includes = {
    users: [{ id: authorId, username: 'e2elongwriter', name: 'Long & Short' }],
    media: [{ media_key: mediaKey, type: 'photo', url: 'https://pbs.twimg.com/media/E2eLongPostPhoto.jpg', width: 1200, height: 800, alt_text: 'Fish & chips' }],
  };
  return { body: { data: [post], includes }, written };
}

export interface FeedUrl {
  url: string;
  expanded_url: string;
  display_url: string;
}

export interface FeedMedia {
  type: string;
  url: string | null;
  preview_image_url: string | null;
  width: number | null;
  height: number | null;
  alt_text: string | null;
}

/** One replayed post and what the feed should show of it (CONTRACT 9). */
export interface ExpectedPost {
  /** What the post shows, for failure messages. */
  label: string;
  recordedId: string;
  /** Its id in the simulator, after the replay. */
  xPostId: string;
  /** With `@`. */
  author: string;
  authorName: string;
  text: string;
  urls: FeedUrl[];
  media: FeedMedia[];
  /** Undefined when the recording did not ask for it (default fields). */
  lang: string | undefined;
}

export interface UserName {
  username: string;
  name: string;
}

const MEDIA_TYPE_OF_KEY: Record<string, string> = { '3': 'photo', '7': 'video', '13': 'video', '16': 'animated_gif' };

/**
 * What X's answer says of one recorded post, in the feed's terms: the whole text as written (a retweet's
 * `RT @author: ` and its whole original when the answer holds it, a long post's note), its links (addresses of a
 * replayed post's own pages moved to its new id), media and language. `users` names every recorded user id;
 * `defaultAuthor` wrote the posts recorded without `author_id`.
 */
export function expectedPost(
  label: string,
  answer: RecordedAnswer,
  recordedId: string,
  replay: SimReplay,
  users: ReadonlyMap<string, UserName>,
  defaultAuthor: UserName,
): ExpectedPost {
  const posts = [...(Array.isArray(answer.data) ? answer.data : [answer.data]), ...(answer.includes?.tweets ?? [])];
  const find = (id: string) => posts.find((candidate) => candidate.id === id);
  const post = find(recordedId);
  if (!post) throw new Error(`${label}: no post ${recordedId} in the recording`);
  const author = (candidate: RecordedPost): UserName => {
    const user = candidate.author_id === undefined ? defaultAuthor : users.get(candidate.author_id);
    if (!user) throw new Error(`${label}: the recording does not name the author ${candidate.author_id}`);
    return user;
  };
  const repoint = (url: string) => url.replace(/\/status\/([0-9]+)/g, (whole, id: string) => (replay.posts[id] ? `/status/${replay.posts[id]}` : whole));
  const content = (source: RecordedPost) => ({
    text: unescapeOnce(source.note_tweet?.text ?? source.text),
    urls: ((source.note_tweet ? source.note_tweet.entities?.urls : source.entities?.urls) ?? []).map((url) => ({
      url: url.url,
      expanded_url: repoint(url.expanded_url),
      display_url: url.display_url,
    })),
    media: (source.attachments?.media_keys ?? []).map((key): FeedMedia => {
      const media = answer.includes?.media?.find((candidate) => candidate.media_key === key);
      return {
        type: media?.type ?? MEDIA_TYPE_OF_KEY[key.split('_')[0]!] ?? 'photo',
        url: media?.url ?? null,
        preview_image_url: media?.preview_image_url ?? null,
        width: media?.width ?? null,
        height: media?.height ?? null,
        alt_text: media?.alt_text ?? null,
      };
    }),
  });
  const retweeted = post.referenced_tweets?.find((reference) => reference.type === 'retweeted');
  const original = retweeted ? find(retweeted.id) : undefined;
  // Without the original in the answer, what the retweet shows of it is all there is.
  const shown = original ? { ...content(original), text: `RT @${author(original).username}: ${content(original).text}` } : content(post);
  const xPostId = replay.posts[recordedId];
  if (!xPostId) throw new Error(`${label}: the replay did not publish ${recordedId}`);
  return { label, recordedId, xPostId, author: `@${author(post).username}`, authorName: author(post).name, ...shown, lang: post.lang };
}

/** The image a chat card shows: the first photo's own address, or a video's or GIF's still; null when none has one. */
export function cardImage(media: readonly FeedMedia[]): string | null {
  for (const item of media) {
    const url = item.type === 'photo' ? (item.url ?? item.preview_image_url) : (item.preview_image_url ?? item.url);
    if (url) return url;
  }
  return null;
}

const MEDIA_LINK = /^pic\.(twitter|x)\.com\/|\/status\/[0-9]+\/(photo|video)\/[0-9]+$/;
const isMediaLink = (url: FeedUrl) => MEDIA_LINK.test(url.display_url) || MEDIA_LINK.test(url.expanded_url);

/**
 * The post's text as a chat card shows it: each listed t.co link as its display address (a t.co link the post
 * does not list stays as it is); with the image shown, a media link that ends the text is left out.
 */
export function shownBody(post: ExpectedPost, imageShown: boolean): string {
  const known = [...post.urls].sort((a, b) => b.url.length - a.url.length);
  const parts: (string | FeedUrl)[] = [];
  const text = post.text;
  for (let at = 0; at < text.length; ) {
    const hit = known.find((url) => text.startsWith(url.url, at) && !/[A-Za-z0-9]/.test(text[at + url.url.length] ?? ''));
    if (hit) {
      parts.push(hit);
      at += hit.url.length;
    } else {
      parts.push(text[at]!);
      at += 1;
    }
  }
  while (typeof parts.at(-1) === 'string' && (parts.at(-1) as string).trim() === '') parts.pop();
  const last = parts.at(-1);
  if (imageShown && last !== undefined && typeof last !== 'string' && isMediaLink(last)) parts.pop();
  return parts
    .map((part) => (typeof part === 'string' ? part : part.display_url))
    .join('')
    .trim();
}

/** A short stretch of the text around its first `&`, free of links: what every channel must show, escaped once. */
export function ampersandStretch(text: string): string | null {
  const at = text.indexOf('&');
  if (at < 0) return null;
  const stretch = text.slice(Math.max(0, at - 10), at + 11);
  return stretch.includes('https://') || stretch.includes('\n') ? text.slice(at, at + 2) : stretch;
}
