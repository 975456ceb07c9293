import { renderHook, screen, waitFor, within } from '@testing-library/react';
import { createAccount, type TestAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { feedWriter } from '../test-support/feed-writer';
import { renderApp, signInBrowser } from '../test-support/render-app';
import { useLiveFeed } from './use-live-feed';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { createQueryClient } from '../App';

const writer = feedWriter();
let account: TestAccount;

beforeAll(async () => {
  account = await createAccount('business');
});
beforeEach(async () => {
  forgetCookies();
  await signInBrowser(account);
});
afterAll(() => writer.close());

const texts = (items: { text: string }[]) => items.map((item) => item.text);

it('puts each item stored while it runs on top, once, without a reload', async () => {
  const older = await writer.store(account.id, ['first post #btc', 'second post #btc']);
  const client = createQueryClient();
  const { result, unmount } = renderHook(() => useLiveFeed({}, 100), {
    wrapper: ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>,
  });
  await waitFor(() => expect(result.current.status).toBe('ready'));
  expect(result.current.items.map((item) => item.id).sort()).toEqual([...older].sort());

  await writer.store(account.id, ['third post #btc']);
  await waitFor(() => expect(texts(result.current.items)[0]).toBe('third post #btc'));
  expect(result.current.items).toHaveLength(3);

  // Two items of one transaction (one detected_at), then one more: each once, the newest on top.
  const group = await writer.store(account.id, ['fourth post #btc', 'fifth post #btc']);
  await writer.store(account.id, ['sixth post #btc']);
  await waitFor(() => expect(result.current.items).toHaveLength(6));
  expect(texts(result.current.items).slice(0, 1)).toEqual(['sixth post #btc']);
  expect(result.current.items.slice(1, 3).map((item) => item.id).sort()).toEqual([...group].sort());
  expect(texts(result.current.items)[3]).toBe('third post #btc');
  expect(result.current.items.slice(4).map((item) => item.id).sort()).toEqual([...older].sort());

  // Several more polls add nothing twice.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const ids = result.current.items.map((item) => item.id);
  expect(new Set(ids).size).toBe(6);
  expect(result.current.error).toBeNull();
  unmount();
});

it('shows a post stored while the Feed page is open as a new article on top', async () => {
  await writer.store(account.id, ['already there #btc']);
  renderApp('/feed');
  const posts = await screen.findByRole('region', { name: 'Posts' });
  const before = within(posts).getAllByRole('article').length;
  expect(screen.getByRole('status')).toHaveTextContent('Live: new posts appear here as they are detected.');

  await writer.store(account.id, ['breaking news #btc']);
  await waitFor(() => expect(within(posts).getAllByRole('article')).toHaveLength(before + 1), { timeout: 10_000 });
  const top = within(posts).getAllByRole('article')[0];
  expect(top).toHaveTextContent('breaking news #btc');
  expect(within(posts).getAllByText('breaking news #btc')).toHaveLength(1);
});

it('reads the first page again when the service cannot be reached (a gateway restarting), and goes live', async () => {
  const [stored] = await writer.store(account.id, ['before the restart #btc']);
  const browserFetch = globalThis.fetch;
  let refused = 0;
  // The browser's network: the first two reads of the feed get no answer, as while a gateway restarts.
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes('/v1/posts') && refused < 2) {
      refused += 1;
      throw new TypeError('Failed to fetch');
    }
    return browserFetch(input, init);
  };
  try {
    const client = createQueryClient();
    const { result, unmount } = renderHook(() => useLiveFeed({}, 100), {
      wrapper: ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>,
    });
    await waitFor(() => expect(result.current.error).not.toBeNull());
    await waitFor(() => expect(result.current.items.map((item) => item.id)).toContain(stored));
    expect(refused).toBe(2);
    expect(result.current.error).toBeNull();
    await writer.store(account.id, ['after the restart #btc']);
    await waitFor(() => expect(texts(result.current.items)[0]).toBe('after the restart #btc'));
    unmount();
  } finally {
    globalThis.fetch = browserFetch;
  }
});
