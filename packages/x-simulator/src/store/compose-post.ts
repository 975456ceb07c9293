import { extractEntities, type PostLink } from './entities';
import { isLongText, longPostShown, retweetText, type PostText } from './post-text';
import { displayUrl, linkTo, tcoUrl, wrapTypedUrls } from './tco-links';
import type { MediaType, NewMedia, NewPost, PostMedia, RecordedContent } from './world-model';

/** A post's texts and media as X shows them. */
export interface ComposedPost {
  /** The whole text, raw, with its entities: search reads it, note_tweet carries it. */
  whole: PostText;
  /** What `text` shows when it is not the whole text. */
  shown: PostText | null;
  long: boolean;
  media: PostMedia[];
}

export interface ComposeContext {
  /** The new post's id: its t.co links and the links to its own pages are drawn from it. */
  id: string;
  authorUsername: string;
  /** The post a retweet retweets, with its author's handle. */
  original?: { authorUsername: string; text: PostText };
  /** The media of the version an edit follows, kept unless the edit gives new media. */
  previousMedia: PostMedia[];
  /** A fresh media key of that type. */
  mediaKey(type: MediaType): string;
}

/**
 * Composes a new post from what its author wrote (typed addresses wrapped in t.co links, given links and the
 * media link appended, a long post cut with a link to the whole), from a recording (kept as it is), or, for
 * a retweet, from its original.
 */
export function composePost(input: NewPost, context: ComposeContext): ComposedPost {
  const { id } = context;
  if (context.original) {
    const { whole, shown } = retweetText(context.original.authorUsername, context.original.text);
    return { whole, shown, long: false, media: [] };
  }
  if (input.recorded) return recordedPost(pointLinksAt(input.recorded, id));
  const typed = wrapTypedUrls(input.text ?? '', id);
  const links = [...typed.links];
  let text = typed.text;
  for (const [index, expanded] of (input.links ?? []).entries()) {
    const link = linkTo(expanded, `${id}:link:${index}`);
    links.push(link);
    text = text === '' ? link.url : `${text} ${link.url}`;
  }
  const media = input.media ? newMedia(input.media, context) : context.previousMedia;
  const long = isLongText(text);
  // The media link X appends points at the post's own photo (or video) page; a long post has the note link instead.
  if (media.length > 0 && !long) {
    const first = media[0]!;
    const url = tcoUrl(`${id}:media`);
    links.push({
      url,
      expandedUrl: `https://twitter.com/${context.authorUsername}/status/${id}/${first.type === 'video' ? 'video' : 'photo'}/1`,
      displayUrl: `pic.twitter.com/${url.slice('https://t.co/'.length)}`,
      mediaKey: first.mediaKey,
    });
    text = text === '' ? url : `${text} ${url}`;
  }
  const whole: PostText = { text, entities: extractEntities(text, links) };
  if (!long) return { whole, shown: null, long, media };
  const expandedUrl = `https://twitter.com/i/web/status/${id}`;
  const noteLink: PostLink = { url: tcoUrl(`${id}:note`), expandedUrl, displayUrl: displayUrl(expandedUrl) };
  return { whole, shown: longPostShown(whole, noteLink), long, media };
}

/** The text search reads: t.co links stand for their expanded addresses, as X's search matches URLs. */
export function searchableText(whole: PostText): string {
  let text = whole.text;
  for (const url of whole.entities.urls) text = text.split(url.link.url).join(` ${url.link.expandedUrl} `);
  return text;
}

const MEDIA_TYPE_CODES: Record<MediaType, number> = { photo: 3, video: 7, animated_gif: 16 };

/** X's media key: `<type code>_<media id>`. */
export function mediaKeyOf(type: MediaType, mediaId: bigint): string {
  return `${MEDIA_TYPE_CODES[type]}_${mediaId}`;
}

function newMedia(media: readonly NewMedia[], context: ComposeContext): PostMedia[] {
  return media.map((item) => ({ ...item, mediaKey: context.mediaKey(item.type) }));
}

function recordedPost(recorded: RecordedContent): ComposedPost {
  const shown: PostText = { text: recorded.text, entities: extractEntities(recorded.text, recorded.links) };
  if (recorded.noteText === undefined) return { whole: shown, shown: null, long: false, media: recorded.media };
  return { whole: { text: recorded.noteText, entities: extractEntities(recorded.noteText, recorded.links) }, shown, long: true, media: recorded.media };
}

/** A recorded post's content with the links to its own pages pointed at its new id. */
function pointLinksAt(recorded: RecordedContent, id: string): RecordedContent {
  const own = recorded.recordedId;
  if (own === undefined) return recorded;
  const pattern = new RegExp(`/status/${own}(?![0-9])`, 'g');
  const repoint = (link: PostLink): PostLink => ({ ...link, expandedUrl: link.expandedUrl.replace(pattern, `/status/${id}`) });
  return { ...recorded, links: recorded.links.map(repoint) };
}
