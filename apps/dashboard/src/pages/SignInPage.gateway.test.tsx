import { inject } from 'vitest';
import { pg } from '../test-support/server-tools';
import { screen } from '@testing-library/react';
import { createAccount, enableTwoFactor, nextCode, type TestAccount } from '../test-support/accounts';
import { forgetCookies, sessionCookie } from '../test-support/browser-fetch';
import { renderApp } from '../test-support/render-app';
import { wrongCode } from '../test-support/totp';

let plain: TestAccount;
let twoFactor: TestAccount & { totpSecret: string };

beforeAll(async () => {
  [plain, twoFactor] = await Promise.all([createAccount('pro'), createAccount('pro').then(enableTwoFactor)]);
});
beforeEach(forgetCookies);

it('redirects a visitor to /signin and shows the API’s wrong-password answer as an alert, in its own words', async () => {
  const { user } = renderApp('/');
  await user.type(await screen.findByLabelText('Email'), plain.email);
  await user.type(screen.getByLabelText('Password'), 'not-the-password-at-all');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('The email or password is wrong.');
  expect(window.location.pathname).toBe('/signin');
  expect(sessionCookie()).toBeUndefined();
});

it('signs in with the right password and lands on the overview', async () => {
  const { user } = renderApp('/signin');
  await user.type(await screen.findByLabelText('Email'), plain.email);
  await user.type(screen.getByLabelText('Password'), plain.password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
  expect(window.location.pathname).toBe('/');
  expect(screen.getByText(plain.email)).toBeInTheDocument();
});

it('asks an account with 2FA for its code, shows a wrong code’s error, and signs in with the right one', async () => {
  const { user } = renderApp('/signin');
  await user.type(await screen.findByLabelText('Email'), twoFactor.email);
  await user.type(screen.getByLabelText('Password'), twoFactor.password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));

  const code = await screen.findByLabelText('Authentication code');
  expect(sessionCookie()).toBeUndefined();
  // A field of its own: empty (the password is not carried into it) and focused.
  expect(code).toHaveValue('');
  expect(code).toHaveFocus();
  await user.type(code, wrongCode(twoFactor.totpSecret));
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('That code is wrong or already used. Wait for the next one and try again.');

  await user.clear(code);
  await user.type(code, nextCode(twoFactor.totpSecret));
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
  expect(sessionCookie()).toMatch(/^hw_session=./);
});

it('goes back to the password, saying why, when the 2FA step has expired', async () => {
  const { user } = renderApp('/signin');
  await user.type(await screen.findByLabelText('Email'), twoFactor.email);
  await user.type(screen.getByLabelText('Password'), twoFactor.password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  const code = await screen.findByLabelText('Authentication code');

  // The step's 5 minutes pass: its row expires in the run's database.
  const database = new (pg().Client)({ connectionString: inject('databaseUrl') });
  await database.connect();
  try {
    await database.query(`UPDATE login_challenges SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [twoFactor.id]);
  } finally {
    await database.end();
  }
  await user.type(code, nextCode(twoFactor.totpSecret));
  await user.click(screen.getByRole('button', { name: 'Verify' }));

  expect(await screen.findByRole('alert')).toHaveTextContent('The sign-in took too long or was already used. Enter your password again.');
  expect(screen.getByLabelText('Password')).toHaveValue('');
  expect(screen.queryByLabelText('Authentication code')).toBeNull();
  expect(sessionCookie()).toBeUndefined();
});
