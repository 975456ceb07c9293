import { screen } from '@testing-library/react';
import { HashwatchError } from '@hashwatch/sdk';
import { backendOf, createAccount, enableTwoFactor, nextCode, type TestAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { renderApp, signInBrowser } from '../test-support/render-app';
import { wrongCode } from '../test-support/totp';

let plain: TestAccount;
let later: TestAccount;

beforeAll(async () => {
  [plain, later] = await Promise.all([createAccount('pro'), createAccount('pro')]);
});
beforeEach(forgetCookies);

async function statusOf(apiKey: string): Promise<number> {
  try {
    await backendOf(apiKey).get('/v1/me');
    return 200;
  } catch (error) {
    if (error instanceof HashwatchError) return error.status;
    throw error;
  }
}

it('shows the regenerated key once, read-only with Copy; it works as a Bearer key and the old one answers 401', async () => {
  await signInBrowser(plain);
  const { user } = renderApp('/api-key');
  expect(await screen.findByRole('heading', { level: 1, name: 'API key' })).toBeInTheDocument();
  expect(screen.queryByLabelText('Authentication code')).not.toBeInTheDocument();
  expect(screen.queryByLabelText('API key')).not.toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Regenerate key' }));
  const field = await screen.findByLabelText<HTMLInputElement>('API key');
  expect(field).toHaveAttribute('readonly');
  const key = field.value;
  expect(key).not.toBe('');
  expect(key).not.toBe(plain.apiKey);
  expect(screen.getByText(/shown once/)).toBeInTheDocument();

  await user.click(screen.getByRole('button', { name: 'Copy' }));
  expect(await screen.findByText('Copied')).toBeInTheDocument();
  await expect(navigator.clipboard.readText()).resolves.toBe(key);

  expect(await statusOf(key)).toBe(200);
  expect(await statusOf(plain.apiKey)).toBe(401);

  // Away and back: the key is gone from the page for good.
  await user.click(screen.getByRole('link', { name: 'Tracks' }));
  expect(await screen.findByRole('heading', { level: 1, name: 'Tracks' })).toBeInTheDocument();
  await user.click(screen.getByRole('link', { name: 'API key' }));
  expect(await screen.findByRole('button', { name: 'Regenerate key' })).toBeInTheDocument();
  expect(screen.queryByLabelText('API key')).not.toBeInTheDocument();
  expect(screen.queryByText(key)).not.toBeInTheDocument();
  expect(screen.queryByText(/shown once/)).not.toBeInTheDocument();
});

it('with 2FA on, asks for the authentication code, shows the API’s error for none or a wrong one, and regenerates with the right one', async () => {
  // Signed in before 2FA was turned on (from another session), so no code was spent on signing in.
  await signInBrowser(later);
  const twoFactor = await enableTwoFactor(later);
  const { user } = renderApp('/api-key');
  const code = await screen.findByLabelText('Authentication code');
  expect(code).toBeRequired();
  const regenerate = screen.getByRole('button', { name: 'Regenerate key' });

  await user.click(regenerate);
  expect(await screen.findByRole('alert')).toHaveTextContent('Enter the code from your authenticator app.');

  await user.type(code, wrongCode(twoFactor.totpSecret));
  await user.click(regenerate);
  expect(await screen.findByRole('alert')).toHaveTextContent('That code is wrong or already used. Wait for the next one and try again.');
  expect(screen.queryByLabelText('API key')).not.toBeInTheDocument();
  expect(await statusOf(twoFactor.apiKey)).toBe(200);

  await user.clear(code);
  await user.type(code, nextCode(twoFactor.totpSecret));
  await user.click(regenerate);
  const key = (await screen.findByLabelText<HTMLInputElement>('API key')).value;
  expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  expect(await statusOf(key)).toBe(200);
  expect(await statusOf(twoFactor.apiKey)).toBe(401);
});
