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

/** One feed item: who, what, which sources matched, when, and its engagement counts with the sampled accounts. */
export const FeedItemView = memo(function FeedItemView({ item }: { item: FeedItem }) {
  const engagement = item.engagement;
  return (
    <article className={`post post-${item.type}`}>
      <header>
        <strong>{item.author_name}</strong> <span className="handle">{item.author}</span>
        {item.type === 'engagement' ? <span className="badge">{item.kind}</span> : null}
        <span className="sources">{item.sources.join(' ')}</span>
      </header>
      <p className="post-text">{item.text}</p>
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
