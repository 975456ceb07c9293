import { useState } from 'react';
import { useAccountTracks, useTracks } from '../api/queries';
import { SelectField } from '../components/Field';
import { Empty, ErrorNote, Loading } from '../components/Status';
import { FeedItemView } from './FeedItem';
import { useLiveFeed, type FeedFilters } from './use-live-feed';

const TYPES = [
  ['', 'All'],
  ['hashtag', 'Hashtag posts'],
  ['account', 'Account posts'],
  ['engagement', 'Engagement'],
] as const;

/** `#btc` → hashtag filter, `@alice` → account filter, '' → none. */
function sourceFilter(source: string): Pick<FeedFilters, 'hashtag' | 'account'> {
  if (source.startsWith('#')) return { hashtag: source.slice(1) };
  if (source.startsWith('@')) return { account: source.slice(1) };
  return {};
}

/** The feed, newest first, filtered by type and source; new items appear on top without a reload. */
export function FeedPage() {
  const [type, setType] = useState<'' | NonNullable<FeedFilters['type']>>('');
  const [source, setSource] = useState('');
  const tracks = useTracks();
  const accounts = useAccountTracks();
  const feed = useLiveFeed({ ...(type ? { type } : {}), ...sourceFilter(source) });
  // One entry per name: the same hashtag tracked for two languages is one feed filter.
  const sources = [...new Set([...(tracks.data?.data ?? []).map((t) => `#${t.hashtag.toLowerCase()}`), ...(accounts.data?.data ?? []).map((a) => `@${a.username.toLowerCase()}`)])];
  return (
    <>
      <h1>Feed</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Type" value={type} onChange={(event) => setType(event.currentTarget.value as typeof type)} options={TYPES} />
        <SelectField label="Source" value={source} onChange={(event) => setSource(event.currentTarget.value)}
          options={[['', 'All sources'], ...sources.map((name) => [name, name] as const)]} />
      </form>
      <p className="live" role="status">
        {feed.status === 'loading' ? '' : 'Live: new posts appear here as they are detected.'}
      </p>
      {feed.error ? <ErrorNote error={feed.error} /> : null}
      {feed.status === 'loading' ? (
        <Loading what="the feed" />
      ) : feed.items.length === 0 ? (
        <Empty>No posts yet{type || source ? ' for these filters' : ''}. They appear here as soon as a source matches one.</Empty>
      ) : (
        <section aria-label="Posts" className="feed">
          {feed.items.map((item) => (
            <FeedItemView key={item.id} item={item} />
          ))}
        </section>
      )}
      {feed.hasOlder ? (
        <button type="button" className="secondary" aria-busy={feed.status === 'more'} disabled={feed.status === 'more'} onClick={() => void feed.loadOlder()}>
          Load older posts
        </button>
      ) : null}
    </>
  );
}
