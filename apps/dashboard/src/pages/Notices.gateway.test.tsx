import { randomBytes } from 'node:crypto';
import { screen, waitFor, within } from '@testing-library/react';
import { inject } from 'vitest';
import { backendOf, createAccount, type TestAccount } from '../test-support/accounts';
import { forgetCookies } from '../test-support/browser-fetch';
import { renderApp, signInBrowser } from '../test-support/render-app';
import { pg, type PgPool } from '../test-support/server-tools';

let pool: PgPool;
let account: TestAccount;

/** A notice row as @hashwatch/notices writes it when a condition starts (and ends). */
async function insertNotice(userId: string, seed: { kind: string; source?: string; message: string; openedAt: string; resolvedAt?: string }): Promise<void> {
  const id = `ntc_${randomBytes(9).toString('base64url')}`;
  await pool.query(
    `INSERT INTO notices (id, user_id, kind, subject, source, message, opened_at, resolved_at) VALUES ($1, $2, $3, $1, $4, $5, $6, $7)`,
    [id, userId, seed.kind, seed.source ?? null, seed.message, seed.openedAt, seed.resolvedAt ?? null],
  );
}

/** A webhook with the API's defaults and no notices switch of its own. */
const webhook = (url: string) => ({
  url, format: 'auto' as const, bot_name: 'Hashwatch', hashtags: [], accounts: [], source_filter: 'all' as const, engagement_alerts: false, template: '', enabled: true,
});

beforeAll(async () => {
  pool = new (pg().Pool)({ connectionString: inject('databaseUrl'), max: 2 });
  pool.on('error', () => undefined);
  account = await createAccount('pro');
});
beforeEach(forgetCookies);
afterAll(() => pool.end());

it('shows the open notices on the overview, with what they are about and since when, then the recently resolved', async () => {
  await insertNotice(account.id, { kind: 'source_silent', source: '#btc', message: 'No post on #btc for 6 h; it usually has one every 20 min.', openedAt: '2026-11-20T10:00:00.000Z' });
  await insertNotice(account.id, {
    kind: 'quota_warning',
    message: '80 % of this period’s alerts are used.',
    openedAt: '2026-11-19T08:00:00.000Z',
    resolvedAt: '2026-11-19T09:00:00.000Z',
  });
  await signInBrowser(account);
  renderApp('/');
  const section = await screen.findByRole('region', { name: 'Notices' });
  const silent = await within(section).findByRole('row', { name: /Source silent/ });
  expect(silent).toHaveTextContent('#btc');
  expect(silent).toHaveTextContent('No post on #btc for 6 h; it usually has one every 20 min.');
  expect(within(silent).getByText((_text, element) => element?.getAttribute('datetime') === '2026-11-20T10:00:00.000Z')).toBeInTheDocument();
  expect(await within(section).findByRole('heading', { name: 'Recently resolved' })).toBeInTheDocument();
  const resolved = within(section).getByRole('row', { name: /Alert quota at 80 %/ });
  expect(resolved).toHaveTextContent('Account');
  expect(within(section).queryByText(/No open notices/)).not.toBeInTheDocument();
});

it('says so when nothing is open', async () => {
  const quiet = await createAccount('starter');
  await signInBrowser(quiet);
  renderApp('/');
  const section = await screen.findByRole('region', { name: 'Notices' });
  expect(await within(section).findByText(/No open notices/)).toBeInTheDocument();
  expect(within(section).queryByRole('heading', { name: 'Recently resolved' })).not.toBeInTheDocument();
});

it('shows each channel’s notices switch at its platform default and saves a change', async () => {
  const owner = await createAccount('pro');
  await backendOf(owner.apiKey).put('/v1/notifications', {
    body: { webhooks: [webhook('https://discord.com/api/webhooks/1/abc'), webhook('https://example.com/hook')], bot: null },
  });
  await signInBrowser(owner);
  const { user } = renderApp('/notifications');
  const discord = await screen.findByRole('group', { name: 'Webhook 1' });
  const json = screen.getByRole('group', { name: 'Webhook 2' });
  expect(within(discord).getByRole('switch', { name: /System notices/ })).toBeChecked();
  const jsonSwitch = within(json).getByRole('switch', { name: /System notices/ });
  expect(jsonSwitch).not.toBeChecked();
  await user.click(jsonSwitch);
  await user.click(screen.getByRole('button', { name: 'Save' }));
  await waitFor(async () => {
    const saved = await backendOf(owner.apiKey).get('/v1/notifications');
    expect(saved.webhooks.map((webhook) => webhook.notices)).toEqual([true, true]);
  });
});
