import { screen } from '@testing-library/react';
import { backendOf, createAccount, type TestAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { renderApp, signInBrowser } from '../test-support/render-app';

// A starter account may track 3 hashtags (prisma/seed.sql).
let full: TestAccount;
let almostFull: TestAccount;

async function track(account: TestAccount, ...hashtags: string[]): Promise<void> {
  for (const hashtag of hashtags) await backendOf(account.apiKey).post('/v1/tracks', { body: { hashtag } });
}

beforeAll(async () => {
  [full, almostFull] = await Promise.all([createAccount('starter'), createAccount('starter')]);
  await Promise.all([track(full, 'btc', 'eth', 'sol'), track(almostFull, 'btc', 'eth')]);
});
beforeEach(forgetCookies);

it('disables Add track at the plan’s hashtag limit and says why', async () => {
  await signInBrowser(full);
  renderApp('/tracks');
  expect(await screen.findByText('3 of 3 hashtags — limit reached')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Add track' })).toBeDisabled();
  expect(screen.getByText('Your plan’s limit is reached: delete one, or change your plan under Billing, to add another.')).toBeInTheDocument();
  expect(await screen.findByRole('button', { name: 'Delete #sol' })).toBeEnabled();
});

it('shows the API’s 403 plan_limit_reached when the limit was reached after the page counted', async () => {
  await signInBrowser(almostFull);
  const { user } = renderApp('/tracks');
  expect(await screen.findByText('2 of 3 hashtags')).toBeInTheDocument();
  expect(screen.queryByText(/limit is reached/)).not.toBeInTheDocument();
  const add = screen.getByRole('button', { name: 'Add track' });
  expect(add).toBeEnabled();

  // The account's backend takes the last slot meanwhile.
  await track(almostFull, 'sol');
  const hashtag = screen.getByRole('textbox', { name: 'Hashtag' });
  await user.type(hashtag, '#doge');
  await user.click(add);
  expect(await screen.findByRole('alert')).toHaveTextContent(
    'the plan allows 3 hashtags and 3 are tracked. Delete one, or change your plan in Billing.',
  );
  expect(hashtag).not.toHaveAttribute('aria-invalid');
  expect(hashtag).toHaveValue('#doge');
  expect(screen.queryByText('#doge')).not.toBeInTheDocument();
});

it('creates a track with every option the API takes (language, retweets excluded, engagement) and lists them', async () => {
  const account = await createAccount('pro');
  await signInBrowser(account);
  const { user } = renderApp('/tracks');
  await user.type(await screen.findByRole('textbox', { name: 'Hashtag' }), '#Gm');
  await user.type(screen.getByRole('textbox', { name: 'Language' }), 'en');
  // Retweets are excluded unless unchecked, as the API's default.
  expect(screen.getByRole('checkbox', { name: 'Exclude retweets' })).toBeChecked();
  await user.click(screen.getByRole('checkbox', { name: 'Track engagement from the start' }));
  await user.click(screen.getByRole('button', { name: 'Add track' }));

  expect(await screen.findByText('language en, retweets excluded')).toBeInTheDocument();
  expect(screen.getByRole('switch', { name: 'Engagement tracking' })).toBeChecked();
  const { data } = await backendOf(account.apiKey).get('/v1/tracks');
  expect(data).toEqual([expect.objectContaining({ hashtag: 'Gm', lang: 'en', exclude_retweets: true, track_engagement: true })]);
});

it('names the field the API refused: a language that is not 2–3 lowercase letters', async () => {
  const account = await createAccount('pro');
  await signInBrowser(account);
  const { user } = renderApp('/tracks');
  await user.type(await screen.findByRole('textbox', { name: 'Hashtag' }), 'gm');
  await user.type(screen.getByRole('textbox', { name: 'Language' }), 'E1');
  await user.click(screen.getByRole('button', { name: 'Add track' }));
  const language = screen.getByRole('textbox', { name: 'Language' });
  await screen.findByText((_text, element) => element?.id === language.getAttribute('aria-describedby') && element.getAttribute('role') === 'alert');
  expect(language).toHaveAttribute('aria-invalid', 'true');
  expect((await backendOf(account.apiKey).get('/v1/tracks')).data).toEqual([]);
});

it('sends retweets included when Exclude retweets is unchecked', async () => {
  const account = await createAccount('pro');
  await signInBrowser(account);
  const { user } = renderApp('/tracks');
  await user.type(await screen.findByRole('textbox', { name: 'Hashtag' }), 'gm');
  await user.click(screen.getByRole('checkbox', { name: 'Exclude retweets' }));
  await user.click(screen.getByRole('button', { name: 'Add track' }));
  expect(await screen.findByText('any language')).toBeInTheDocument();
  expect((await backendOf(account.apiKey).get('/v1/tracks')).data).toEqual([expect.objectContaining({ hashtag: 'gm', lang: null, exclude_retweets: false })]);
  // The form is ready for the next track, with the defaults again.
  expect(screen.getByRole('checkbox', { name: 'Exclude retweets' })).toBeChecked();
});

it('creates an account track with its mentions and lists it so', async () => {
  const account = await createAccount('pro');
  await signInBrowser(account);
  const { user } = renderApp('/accounts');
  await user.type(await screen.findByRole('textbox', { name: 'Username' }), '@AcmeCo');
  await user.click(screen.getByRole('checkbox', { name: 'Include posts that mention it' }));
  await user.click(screen.getByRole('button', { name: 'Add account' }));
  expect(await screen.findByText('with mentions, replies excluded')).toBeInTheDocument();
  expect((await backendOf(account.apiKey).get('/v1/accounts')).data).toEqual([expect.objectContaining({ username: 'AcmeCo', include_mentions: true, exclude_replies: true })]);
});
