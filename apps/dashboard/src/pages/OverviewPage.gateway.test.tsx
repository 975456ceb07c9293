import { screen, within } from '@testing-library/react';
import { inject } from 'vitest';
import { createAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { renderApp, signInBrowser } from '../test-support/render-app';
import { pg } from '../test-support/server-tools';

beforeEach(forgetCookies);

it('shows the period’s upstream cost per source as GET /v1/usage answers it, most read first', async () => {
  const account = await createAccount('pro');
  // What the scanner meters for the account this period: two sources, one of them no longer tracked.
  const pool = new (pg().Pool)({ connectionString: inject('databaseUrl'), max: 1 });
  try {
    await pool.query(
      `WITH p AS (INSERT INTO usage_periods (user_id, period_start, period_end, upstream_posts_read)
                  SELECT id, current_period_start, current_period_end, 30.5 FROM users WHERE id = $1)
       INSERT INTO upstream_usage_by_source (user_id, period_start, source, reads, requests)
       SELECT id, current_period_start, v.source, v.reads, v.requests FROM users,
              (VALUES ('#btc', 10.25, 2.5), ('@alice', 20.25, 1.75)) AS v(source, reads, requests)
        WHERE id = $1`,
      [account.id],
    );
  } finally {
    await pool.end();
  }
  await signInBrowser(account);
  renderApp('/');
  const section = (await screen.findByRole('heading', { name: 'Upstream cost per source' })).closest('section') as HTMLElement;
  expect(within(section).getByText(/X posts read/)).toHaveTextContent('30.5 X posts read and 4.25 search requests on your behalf this period.');
  const rows = within(section).getAllByRole('row').map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
  expect(rows).toEqual([
    ['Source', 'Posts read', 'Share of reads', 'Requests'],
    ['@alice', '20.25', '66 %', '1.75'],
    ['#btc', '10.25', '34 %', '2.5'],
  ]);
});
