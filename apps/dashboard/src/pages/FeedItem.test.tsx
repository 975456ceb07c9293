import { render, screen } from '@testing-library/react';
import type { FeedItem } from '../api/client';
import { FeedItemView } from './FeedItem';

const base: FeedItem = {
  id: 'post_1', type: 'hashtag', hashtag: 'btc', account: null, sources: ['#btc'], matched_by: null, author: '@alice', author_name: 'Alice',
  text: 'Rates & bonds <now> https://t.co/abc', url: 'https://x.com/alice/status/2',
  urls: [{ url: 'https://t.co/abc', expanded_url: 'https://example.com/report?a=1&b=2', display_url: 'example.com/report…' }],
  media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', preview_image_url: null, width: 1200, height: 675, alt_text: 'a chart' }],
  quoted: { id: '1', author: '@bob', author_name: 'Bob', text: 'Fish & Chips', url: 'https://x.com/bob/status/1' },
  lang: 'en', edited_at: '2026-11-22T01:00:06.000Z', deleted: false,
  posted_at: '2026-11-22T01:00:00.000Z', detected_at: '2026-11-22T01:00:05.000Z', engagement: null,
};

describe('FeedItemView', () => {
  it('shows the text as written with each t.co link as its display text, the media, the quoted post and the edit', () => {
    render(<FeedItemView item={base} />);
    expect(screen.getByText(/Rates & bonds <now>/)).toBeInTheDocument();
    const link = screen.getByRole('link', { name: 'example.com/report…' });
    expect(link).toHaveAttribute('href', 'https://example.com/report?a=1&b=2');
    expect(screen.queryByText(/t\.co/)).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'photo 1200×675' })).toHaveAttribute('href', 'https://pbs.twimg.com/media/a.jpg');
    expect(screen.getByText('Fish & Chips')).toBeInTheDocument();
    expect(screen.getByText('edited')).toBeInTheDocument();
  });

  it('marks a post that mentions a watched account, and no other', () => {
    const { unmount } = render(<FeedItemView item={{ ...base, type: 'account', hashtag: null, account: 'acme', sources: ['@acme'], matched_by: 'mention' }} />);
    expect(screen.getByTitle('mentions @acme')).toHaveTextContent('mention');
    unmount();
    render(<FeedItemView item={{ ...base, type: 'account', hashtag: null, account: 'acme', sources: ['@acme'], matched_by: 'author' }} />);
    expect(screen.queryByText('mention')).not.toBeInTheDocument();
  });

  it('says a post deleted on X is gone instead of showing an empty text', () => {
    render(<FeedItemView item={{ ...base, deleted: true, text: '', author_name: '', urls: [], media: [], quoted: null, edited_at: null }} />);
    expect(screen.getByText(/Deleted on X/)).toBeInTheDocument();
    expect(screen.queryByText('edited')).not.toBeInTheDocument();
  });
});
