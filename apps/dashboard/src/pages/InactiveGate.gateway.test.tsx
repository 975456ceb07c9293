import { inject } from 'vitest';
import { screen } from '@testing-library/react';
import { createAccount, type TestAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { renderApp, signInBrowser } from '../test-support/render-app';
import { pg } from '../test-support/server-tools';

let returning: TestAccount;
let lapsed: TestAccount;

async function query(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  const database = new (pg().Client)({ connectionString: inject('databaseUrl') });
  await database.connect();
  try {
    return (await database.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await database.end();
  }
}

beforeAll(async () => {
  [returning, lapsed] = await Promise.all([createAccount('starter'), createAccount('pro')]);
  await query(`UPDATE users SET subscription_status = 'canceled' WHERE id = $1`, [returning.id]);
  await query(`UPDATE users SET subscription_status = 'past_due' WHERE id = $1`, [lapsed.id]);
});
beforeEach(forgetCookies);

it('offers a canceled account a new subscription on the plan it picks, and opens its checkout page', async () => {
  await signInBrowser(returning);
  const { user } = renderApp('/');
  expect(await screen.findByRole('heading', { level: 1, name: 'Subscription not active' })).toBeInTheDocument();
  await user.selectOptions(screen.getByLabelText('Plan'), 'business');
  await user.click(screen.getByRole('button', { name: 'Subscribe again' }));
  expect(await screen.findByRole('heading', { level: 1, name: 'Subscription' })).toBeInTheDocument();
  expect(window.location.pathname).toMatch(/^\/checkout\/chk_/);
  const [account] = await query(`SELECT plan_id, subscription_status::text AS status FROM users WHERE id = $1`, [returning.id]);
  // Manual billing: the account waits for the operator, on the plan it picked.
  expect(account).toEqual({ plan_id: 'business', status: 'canceled' });
  const checkouts = await query(`SELECT plan_id FROM checkouts WHERE user_id = $1`, [returning.id]);
  expect(checkouts).toEqual([{ plan_id: 'business' }]);
});

it('shows a past-due account the API’s answer: it pays from the portal, and no checkout is opened', async () => {
  await signInBrowser(lapsed);
  const { user } = renderApp('/');
  await user.click(await screen.findByRole('button', { name: 'Subscribe again' }));
  expect(await screen.findByRole('alert')).toHaveTextContent(/not canceled: change the plan or pay from the billing portal/);
  expect(await query(`SELECT 1 FROM checkouts WHERE user_id = $1`, [lapsed.id])).toEqual([]);
});
