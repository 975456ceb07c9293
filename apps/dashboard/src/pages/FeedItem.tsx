import { memo } from 'react';
import type { FeedItem } from '../api/client';
import { formatTime } from '../format';


function Sample({ label, handles }: { label: string; handles: string[] }) {
  if (handles.length === 0) return null;
  return (
    <details>
      <summary>
        {label} (sample of {handles.length})
      </summary>
      <p className="handles">{handles.join(' ')}</p>
    </details>
  );
}

type Link = FeedItem['urls'][number];

/** The post's text with each t.co link shown as its display text, pointing at the address the author linked. */
function PostText({ text, urls }: { text: string; urls: Link[] }) {
  const parts: (string | Link)[] = [];
  let rest = text;
  for (const link of urls) {
    const at = rest.indexOf(link.url);
    if (at < 0) continue;
    parts.push(rest.slice(0, at), link);
    rest = rest.slice(at + link.url.length);
  }
  parts.push(rest);
  return (
    <p className="post-text">
      {parts.map((part, index) =>
        typeof part === 'string' ? (
          part
        ) : (
          <a key={index} href={part.expanded_url} target="_blank" rel="noreferrer noopener">
            {part.display_url}
          </a>
        ),
      )}
    </p>
  );
}

const MEDIA_LABEL: Record<string, string> = { photo: 'photo', video: 'video', animated_gif: 'GIF' };

/** One feed item: who, what, which sources matched, when, and its engagement counts with the sampled accounts. */
export const FeedItemView = memo(function FeedItemView({ item }: { item: FeedItem }) {
  const engagement = item.engagement;
  return (
    <article className={`post post-${item.type}`}>
      <header>
        <strong>{item.author_name}</strong> <span className="handle">{item.author}</span>
        {item.type === 'engagement' ? <span className="badge">{item.kind}</span> : null}
        {item.matched_by === 'mention' ? <span className="badge" title={`mentions @${item.account ?? ''}`}>mention</span> : null}
        <span className="sources">{item.sources.join(' ')}</span>
        {item.edited_at ? <span className="badge" title={`newest version seen ${formatTime(item.edited_at)}`}>edited</span> : null}
      </header>
      {item.deleted ? <p className="post-deleted">Deleted on X: its text and media are no longer shown.</p> : <PostText text={item.text} urls={item.urls} />}
      {item.media.length > 0 ? (
        <p className="post-media">
          {item.media.map((media, index) => (
            <a key={index} href={media.url ?? media.preview_image_url ?? item.url} target="_blank" rel="noreferrer noopener" title={media.alt_text ?? undefined}>
              {MEDIA_LABEL[media.type] ?? media.type}
              {media.width && media.height ? ` ${media.width}×${media.height}` : ''}
            </a>
          ))}
        </p>
      ) : null}
      {item.quoted ? (
        <blockquote className="post-quoted">
          <a href={item.quoted.url} target="_blank" rel="noreferrer noopener">
            {item.quoted.author_name || item.quoted.author} <span className="handle">{item.quoted.author}</span>
          </a>
          <p className="post-text">{item.quoted.text}</p>
        </blockquote>
      ) : null}
      {engagement ? (
        <div className="engagement">
          <span>{engagement.like_count} likes</span> · <span>{engagement.retweet_count} reposts</span> · <span>{engagement.reply_count} replies</span>
          <Sample label="Liked by" handles={engagement.likers} />
          <Sample label="Reposted by" handles={engagement.retweeters} />
          <Sample label="Replied by" handles={engagement.repliers} />
        </div>
      ) : null}
      <footer>
        <a href={item.url} target="_blank" rel="noreferrer noopener">
          View on X
        </a>
        <span>
          {item.posted_at ? `posted ${formatTime(item.posted_at)}, ` : ''}detected <time dateTime={item.detected_at}>{formatTime(item.detected_at)}</time>
        </span>
      </footer>
    </article>
  );
});
