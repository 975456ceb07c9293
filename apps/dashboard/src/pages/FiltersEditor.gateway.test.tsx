import { screen, within } from '@testing-library/react';
import { backendOf, createAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { feedWriter } from '../test-support/feed-writer';
import { renderApp, signInBrowser } from '../test-support/render-app';

const writer = feedWriter();
beforeEach(forgetCookies);
afterAll(() => writer.close());

it('tries filters on the track\'s stored posts, saves them and shows them in a few words', async () => {
  const account = await createAccount('pro');
  await backendOf(account.apiKey).post('/v1/tracks', { body: { hashtag: 'btc' } });
  await writer.store(account.id, ['ETF approved #btc', '#btc ETF giveaway', '#btc chart only']);
  await signInBrowser(account);
  const { user } = renderApp('/tracks');

  await user.click(await screen.findByText('Filters of #btc: none'));
  await user.type(screen.getByRole('textbox', { name: 'Any of these words' }), 'etf');
  await user.type(screen.getByRole('textbox', { name: 'None of these words' }), 'giveaway');
  await user.click(screen.getByRole('button', { name: 'Preview' }));
  const preview = await screen.findByRole('region', { name: 'Preview of #btc' });
  expect(within(preview).getByRole('status')).toHaveTextContent('1 of the last 3 stored posts of #btc would have passed:');
  expect(within(preview).getByText('ETF approved #btc')).toBeInTheDocument();
  expect(within(preview).queryByText('#btc ETF giveaway')).not.toBeInTheDocument();
  // Trying changed nothing.
  expect((await backendOf(account.apiKey).get('/v1/tracks')).data[0]?.filters.keywords_any).toEqual([]);

  await user.click(screen.getByRole('checkbox', { name: 'Leave quote posts out' }));
  await user.type(screen.getByRole('spinbutton', { name: 'Minimum followers' }), '100');
  await user.click(screen.getByRole('button', { name: 'Save filters' }));
  expect(await screen.findByText('Filters of #btc: any of etf · none of giveaway · no quotes · ≥ 100 followers')).toBeInTheDocument();
  const [saved] = (await backendOf(account.apiKey).get('/v1/tracks')).data;
  expect(saved?.filters).toEqual({ keywords_any: ['etf'], keywords_all: [], keywords_none: ['giveaway'], has_media: false, has_links: false, exclude_quotes: true, verified_only: false, min_followers: 100 });

  await user.click(screen.getByRole('button', { name: 'Remove filters' }));
  expect(await screen.findByText('Filters of #btc: none')).toBeInTheDocument();
  // The fields show what is saved now, so a later save cannot bring the removed filters back.
  expect(screen.getByRole('textbox', { name: 'Any of these words' })).toHaveValue('');
  expect(screen.getByRole('checkbox', { name: 'Leave quote posts out' })).not.toBeChecked();
  expect(screen.getByRole('spinbutton', { name: 'Minimum followers' })).toHaveValue(null);
});

it('puts the API\'s complaint next to the word list it names, and saves nothing', async () => {
  const account = await createAccount('pro');
  await backendOf(account.apiKey).post('/v1/accounts', { body: { username: 'alice' } });
  await signInBrowser(account);
  const { user } = renderApp('/accounts');
  await user.click(await screen.findByText('Filters of @alice: none'));
  const all = screen.getByRole('textbox', { name: 'All of these words' });
  await user.type(all, `"${'long '.repeat(13)}"`);
  await user.click(screen.getByRole('button', { name: 'Save filters' }));
  await screen.findByText('must be at most 60 characters');
  expect(all).toHaveAttribute('aria-invalid', 'true');

  await user.clear(all);
  await user.type(all, 'launch');
  await user.type(screen.getByRole('textbox', { name: 'None of these words' }), 'LAUNCH');
  await user.click(screen.getByRole('button', { name: 'Save filters' }));
  expect(await screen.findByText(/can never match/)).toBeInTheDocument();
  expect((await backendOf(account.apiKey).get('/v1/accounts')).data[0]?.filters.keywords_all).toEqual([]);
});
