import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { waitFor, type WebhookReceiver } from '@hashwatch/testing';
import { button, field, heading, openPage, select, type Screenshots } from './dashboard-pages';
import { TotpCodes } from './totp-codes';
import type { XSimClient } from './x-sim-client';

export const JOURNEY_PASSWORD = 'correct horse battery staple';
const POST_SEEN_MS = 30_000;
// Sign-out and deletion land on the sign-in page (deletion with a query saying why).
const SIGN_IN_URL = /\/signin(\?.*)?$/;

const sessionSchema = z.object({ account_id: z.string(), email: z.string() });
const tracksSchema = z.object({ data: z.array(z.object({ hashtag: z.string() })) });

export interface JourneyWorld {
  /** The gateway's origin, which serves the dashboard at `/` and is its PUBLIC_URL. */
  origin: string;
  xsim: XSimClient;
  receiver: WebhookReceiver;
  pool: pg.Pool;
  /** Where each page visited is saved as a PNG; none, no screenshots. */
  shots?: Screenshots;
}

/** What one walk measured, printed by the test. */
export interface JourneyReport {
  email: string;
  accountId: string;
  /** From the post's publication on X to its article on the open feed page. */
  postSeenMs: number;
  /** Spent waiting for the next TOTP step (the gateway takes each code once, in order). */
  totpWaitMs: number;
}

/** Tests sent to the receiver so far: json payloads of type `test`. */
function testsReceived(receiver: WebhookReceiver): number {
  return receiver.accepted().filter((request) => {
    try {
      return (JSON.parse(request.body) as { type?: unknown }).type === 'test';
    } catch {
      return false;
    }
  }).length;
}

/** Checkout (sign up) on the Business plan; manual billing with BILLING_AUTO_ACTIVATE activates it at once. */
export async function signUp(page: Page, world: JourneyWorld, email: string): Promise<string> {
  await page.goto(`${world.origin}/signup`);
  await button(page, 'Start subscription').waitFor();
  await world.shots?.take(page, 'signup');
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(JOURNEY_PASSWORD);
  await select(page, 'Plan').selectOption('business');
  await button(page, 'Start subscription').click();
  await page.waitForURL(/\/checkout\/chk_/);
  await heading(page, 'Subscription').waitFor();
  await page.getByText('Your subscription is active').waitFor();
  await page.getByRole('link', { name: 'Go to overview', exact: true }).click();
  await heading(page, 'Overview').waitFor();
  // The session the page holds (its cookie is the context's): the account the checkout made.
  const session = await page.request.get(`${world.origin}/v1/session`);
  expect(session.status()).toBe(200);
  return sessionSchema.parse(await session.json()).account_id;
}

async function addTrack(page: Page, world: JourneyWorld, tag: string): Promise<void> {
  await openPage(page, 'Tracks');
  await field(page, 'Hashtag').fill(tag);
  await button(page, 'Add track').click();
  await page.getByRole('listitem').filter({ hasText: `#${tag}` }).first().waitFor();
  await world.shots?.take(page, 'tracks');
}

/** With the feed page open, X publishes a post with the tag: its article appears with no reload of the page. */
async function seePostOnFeed(page: Page, world: JourneyWorld, tag: string): Promise<number> {
  await openPage(page, 'Feed');
  // A reload would drop this mark: it shows the article came in while the same document stayed open.
  await page.evaluate('window.hwJourneyMark = 1');
  const author = `journey${randomBytes(3).toString('hex')}`;
  const text = `Journey check ${randomBytes(4).toString('hex')} #${tag}`;
  const published = Date.now();
  await world.xsim.injectPost({ author, text, lang: 'en' });
  const article = page.getByRole('article').filter({ hasText: text });
  await article.waitFor({ timeout: POST_SEEN_MS });
  const seenMs = Date.now() - published;
  await expect(article.innerText()).resolves.toContain(`@${author}`);
  expect(await page.evaluate('window.hwJourneyMark')).toBe(1);
  await world.shots?.take(page, 'feed');
  return seenMs;
}

/** A json webhook to the receiver, saved; its `Send test` reaches the receiver once and the page says so. */
async function configureWebhook(page: Page, world: JourneyWorld): Promise<void> {
  await openPage(page, 'Notifications');
  await button(page, 'Add webhook').click();
  const group = page.getByRole('group', { name: 'Webhook 1', exact: true });
  await field(group, 'Webhook URL').fill(world.receiver.url);
  await select(group, 'Format').selectOption('json');
  // A json receiver's own ceiling (shown for json receivers only), saved with the channel.
  await group.getByRole('spinbutton', { name: 'Most messages per second', exact: true }).fill('50');
  await button(page, 'Save').click();
  await page.getByText('Saved', { exact: true }).waitFor();
  const { rows } = await world.pool.query<{ max_per_second: number | null }>(
    `SELECT max_per_second FROM notification_channels WHERE url = $1`, [world.receiver.url]);
  expect(rows.map((row) => row.max_per_second)).toEqual([50]);
  const before = testsReceived(world.receiver);
  await button(group, 'Send test').click();
  await group.getByText(/Delivered \(HTTP 2\d\d\)/).waitFor();
  await waitFor(() => testsReceived(world.receiver) > before, 5_000, 'the test alert at the receiver');
  expect(testsReceived(world.receiver)).toBe(before + 1);
  await world.shots?.take(page, 'notifications');
}

/** Texts of the posts delivered to the receiver so far: json payloads of type `post`. */
function postTexts(receiver: WebhookReceiver): string[] {
  return receiver.accepted().flatMap((request) => {
    try {
      const body = JSON.parse(request.body) as { type?: unknown; post?: { text?: unknown } };
      return body.type === 'post' && typeof body.post?.text === 'string' ? [body.post.text] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Filters on the track: tried first on the post it already detected (which they would not have passed), saved, and
 * then of two new posts only the one they pass reaches the webhook.
 */
async function filterTrack(page: Page, world: JourneyWorld, tag: string): Promise<void> {
  await openPage(page, 'Tracks');
  await page.getByText(`Filters of #${tag}: none`).click();
  await field(page, 'Any of these words').fill('launch\n"lift off"');
  await button(page, 'Preview').click();
  await page.getByRole('region', { name: `Preview of #${tag}` }).getByText(`0 of the last 1 stored posts of #${tag} would have passed.`).waitFor();
  await page.getByRole('checkbox', { name: 'Leave quote posts out', exact: true }).check();
  await button(page, 'Save filters').click();
  await page.getByText(`Filters of #${tag}: any of launch, "lift off" · no quotes`).waitFor();
  await world.shots?.take(page, 'tracks-filters');
  const mark = randomBytes(4).toString('hex');
  const ignored = `Journey noise ${mark} #${tag}`;
  const wanted = `Journey LAUNCH ${mark} #${tag}`;
  await world.xsim.injectPost({ author: 'journeyfilter', text: ignored, lang: 'en' });
  await world.xsim.injectPost({ author: 'journeyfilter', text: wanted, lang: 'en' });
  await waitFor(() => postTexts(world.receiver).includes(wanted), POST_SEEN_MS, 'the post the filters pass, at the webhook');
  expect(postTexts(world.receiver).filter((text) => text.includes(mark))).toEqual([wanted]);
}

/** Enrols 2FA with the secret the page shows (the QR code beside it); answers the authenticator and the recovery codes. */
async function enableTwoFactor(page: Page, world: JourneyWorld): Promise<{ codes: TotpCodes; recovery: string[] }> {
  await openPage(page, 'Security');
  await button(page, 'Enable 2FA').click();
  await page.getByRole('img', { name: 'QR code for your authenticator app', exact: true }).waitFor();
  const secret = await field(page, 'Secret').inputValue();
  expect(secret).toMatch(/^[A-Z2-7]+=*$/);
  const codes = new TotpCodes(secret);
  await field(page, 'Authentication code').fill(await codes.next());
  await button(page, 'Turn on 2FA').click();
  // The recovery codes, shown once, until they are said to be saved.
  const list = page.getByRole('list', { name: 'Recovery codes', exact: true });
  await list.waitFor();
  const recovery = (await list.getByRole('listitem').allInnerTexts()).map((text) => text.trim());
  expect(recovery).toHaveLength(10);
  for (const code of recovery) expect(code).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
  await world.shots?.take(page, 'recovery-codes');
  await button(page, 'I have saved them').click();
  await page.getByText('2FA is on').waitFor();

  await button(page, 'Disable 2FA').waitFor();
  await world.shots?.take(page, 'security');
  return { codes, recovery };
}

/** Sign out, then sign in again through the 2FA step, with a recovery code. */
async function signOutAndIn(page: Page, world: JourneyWorld, email: string, recoveryCode: string): Promise<void> {
  await button(page, 'Sign out').click();
  await page.waitForURL(SIGN_IN_URL);
  await button(page, 'Sign in').waitFor();
  await world.shots?.take(page, 'signin');
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(JOURNEY_PASSWORD);
  await button(page, 'Sign in').click();
  // A recovery code stands in for the authenticator's code.
  await field(page, 'Authentication code').fill(recoveryCode);
  await button(page, 'Verify').click();
  await heading(page, 'Overview').waitFor();
}

/** A new key, shown once, with a fresh code; it works as a bearer token and lists the account's track. */
async function regenerateKey(page: Page, world: JourneyWorld, codes: TotpCodes, tag: string): Promise<void> {
  await openPage(page, 'API key');
  await field(page, 'Authentication code').fill(await codes.next());
  await button(page, 'Regenerate key').click();
  const key = page.getByRole('textbox', { name: 'API key', exact: true });
  await key.waitFor();
  await page.getByText('shown once').waitFor();
  const apiKey = await key.inputValue();
  expect(apiKey.length).toBeGreaterThan(20);
  await world.shots?.take(page, 'api-key');
  const viaKey = await fetch(`${world.origin}/v1/tracks`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(viaKey.status).toBe(200);
  expect(tracksSchema.parse(await viaKey.json()).data.map((track) => track.hashtag)).toEqual([tag]);
}

/** Every public table's rows that name the account (a `user_id` column), and its `users` row. */
async function rowsOf(pool: pg.Pool, accountId: string, email: string): Promise<{ table: string; rows: number }[]> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'user_id' ORDER BY table_name`,
  );
  const counts = [];
  for (const { table_name: table } of tables) {
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" WHERE user_id = $1`, [accountId]);
    counts.push({ table, rows: rows[0]?.n ?? 0 });
  }
  const users = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE id = $1 OR email = $2', [accountId, email]);
  counts.push({ table: 'users', rows: users.rows[0]?.n ?? 0 });
  return counts;
}

/** Billing → Delete account, confirmed with the email and a code: signed out, and nothing of it in the database. */
async function deleteAccount(page: Page, world: JourneyWorld, email: string, accountId: string, codes: TotpCodes): Promise<void> {
  await openPage(page, 'Billing');
  await world.shots?.take(page, 'billing');
  expect((await rowsOf(world.pool, accountId, email)).some((count) => count.table === 'users' && count.rows === 1)).toBe(true);
  await button(page, 'Delete account').click();
  const dialog = page.getByRole('dialog');
  await field(dialog, 'Confirm email').fill(email);
  await field(dialog, 'Authentication code').fill(await codes.next());
  await button(dialog, 'Delete account permanently').click();
  await page.waitForURL(SIGN_IN_URL);
  await page.getByText('Your account was deleted').waitFor();
  expect((await page.request.get(`${world.origin}/v1/session`)).status()).toBe(401);
  expect((await rowsOf(world.pool, accountId, email)).filter((count) => count.rows > 0)).toEqual([]);
}

/**
 * One person's whole way through the dashboard in one page: sign up, a track, its post arriving on the feed, a
 * json webhook and its test, filters on the track, 2FA, sign-out and sign-in with a code, a new key, and deletion.
 */
export async function walkJourney(page: Page, world: JourneyWorld, run: number): Promise<JourneyReport> {
  const email = `journey-${run}-${randomBytes(4).toString('hex')}@example.com`;
  const tag = `journey${run}${randomBytes(3).toString('hex')}`;
  const accountId = await signUp(page, world, email);
  await addTrack(page, world, tag);
  const postSeenMs = await seePostOnFeed(page, world, tag);
  await configureWebhook(page, world);
  await filterTrack(page, world, tag);
  // The overview now has a source, its post counted as an alert, and a channel.
  await openPage(page, 'Overview', world.shots);
  const { codes, recovery } = await enableTwoFactor(page, world);
  await signOutAndIn(page, world, email, recovery[0] as string);
  await regenerateKey(page, world, codes, tag);
  await deleteAccount(page, world, email, accountId, codes);
  return { email, accountId, postSeenMs, totpWaitMs: codes.waitedMs };
}
