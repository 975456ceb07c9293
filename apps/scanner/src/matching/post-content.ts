import type { FeedMedia, FeedQuoted, FeedUrl } from '@hashwatch/feed';
import type { XPost } from '@hashwatch/x-api';

/** What a feed item shows of a post beyond its text (CONTRACT 9), in the feed's own names. */
export interface PostContent {
  /** The newest version's page: X opens an older version's id with a pointer to the newest. */
  url: string;
  lang: string | null;
  urls: FeedUrl[];
  media: FeedMedia[];
  quoted: FeedQuoted | null;
}

/** x.com/i/status/<id> opens any post when the handle is unknown. */
export function postUrl(handle: string | null, id: string): string {
  return `https://x.com/${handle ?? 'i'}/status/${id}`;
}

export function postContent(post: XPost): PostContent {
  const quoted = post.quoted;
  const quotedHandle = quoted?.author?.username ?? null;
  return {
    url: postUrl(post.author?.username ?? null, post.id),
    lang: post.lang,
    urls: post.urls.map((link) => ({ url: link.url, expanded_url: link.expandedUrl, display_url: link.displayUrl })),
    media: post.media.map((media) => ({
      type: media.type,
      url: media.url,
      preview_image_url: media.previewImageUrl,
      width: media.width,
      height: media.height,
      alt_text: media.altText,
    })),
    quoted: quoted
      ? {
          id: quoted.id,
          author: `@${quotedHandle ?? quoted.authorId ?? 'unknown'}`,
          author_name: quoted.author?.name ?? quotedHandle ?? '',
          text: quoted.text,
          url: postUrl(quotedHandle, quoted.id),
        }
      : null,
  };
}
