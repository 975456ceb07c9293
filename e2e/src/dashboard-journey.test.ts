import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { waitFor, WebhookReceiver } from '@hashwatch/testing';
import { launchChromium } from './harness/chromium';
import { signUp, walkJourney, type JourneyWorld } from './harness/dashboard-journey';
import { button, field, heading, openPage, PAGES, Screenshots, scrollWidth, settle, untilTrue } from './harness/dashboard-pages';
import { Suite } from './harness/suite';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 375, height: 812 };

/**
 * The dashboard as a person uses it, in Chromium, against the built apps as separate processes (x-sim, gateway
 * with manual billing that activates at once, scanner, engagement-poller, notifier) and a webhook receiver: the
 * whole journey once; then
 * the API reference, and every page on a 375 px wide screen. The PNG of each page visited goes to a folder the
 * test prints (the journey at 1440×900, the phone pass as mobile-*.png).
 */
describe('the dashboard in Chromium against the built apps', () => {
  let suite: Suite | undefined;
  let browser: Browser | undefined;
  let receiver: WebhookReceiver | undefined;
  const shots = new Screenshots(mkdtempSync(path.join(os.tmpdir(), 'hw-dashboard-screens-')));

  const world = (withShots: boolean): JourneyWorld => {
    if (!suite || !receiver) throw new Error('the apps did not start');
    return { origin: suite.gateway.baseUrl, xsim: suite.xsim, receiver, pool: suite.pool, shots: withShots ? shots : undefined };
  };

  /** A page of a fresh browser context (no cookies); the failing page's PNG is kept when `use` throws. */
  async function inPage(viewport: { width: number; height: number }, label: string, use: (page: Page) => Promise<void>): Promise<void> {
    if (!browser) throw new Error('Chromium did not start');
    const context: BrowserContext = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await use(page);
    } catch (error) {
      await shots.take(page, `failed-${label}`).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  }

  beforeAll(async () => {
    process.stdout.write(`dashboard screenshots in ${shots.dir}\n`);
    browser = await launchChromium();
    suite = await Suite.start({
      // The journey's accounts come from the checkout page on the business plan, whose cadences Suite sets first.
      gatewayEnv: (origin) => ({ PUBLIC_URL: origin, BILLING_PROVIDER: 'manual', BILLING_AUTO_ACTIVATE: 'true' }),
    });
    receiver = await new WebhookReceiver().start();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await suite?.stop();
  });

  it('signs up, tracks, sees the post arrive, tests a webhook, turns on 2FA, signs in with a code, regenerates the key and deletes the account', async () => {
    const run = 1;
    await inPage(DESKTOP, 'journey', async (page) => {
      const started = Date.now();
      const report = await walkJourney(page, world(true), run);
      process.stdout.write(`${JSON.stringify({ e2e: 'dashboard-journey', run, ms: Date.now() - started, post_seen_ms: report.postSeenMs, totp_wait_ms: report.totpWaitMs })}\n`);
    });
  });

  it('renders the API reference at /docs: the operations of the dashboard\'s endpoints are listed', async () => {
    await inPage(DESKTOP, 'docs', async (page) => {
      const origin = world(false).origin;
      await page.goto(`${origin}/docs`);
      // Both renderers (the server-side page and Swagger UI) show each operation's method and path.
      await untilTrue(page, '/\\/apikey\\/regenerate/.test(document.body.innerText) && /\\/notifications\\/test/.test(document.body.innerText)');
      expect(await page.locator('body').innerText()).toMatch(/post/i);
      await shots.take(page, 'docs');
    });
  });

  it('fits a 375 px wide screen: no page, signed out or in, scrolls sideways', async () => {
    await inPage(PHONE, 'phone', async (page) => {
      const origin = world(false).origin;
      const widths: Record<string, number> = {};
      for (const route of ['/signin', '/signup']) {
        await page.goto(`${origin}${route}`);
        await page.getByRole('button', { name: route === '/signin' ? 'Sign in' : 'Start subscription', exact: true }).waitFor();
        widths[route] = await scrollWidth(page);
        await shots.take(page, `mobile-${route.slice(1)}`);
      }
      await signUp(page, world(false), `phone-${Date.now()}@example.com`);
      for (const entry of PAGES) {
        await page.goto(`${origin}${entry.route}`);
        await heading(page, entry.name).waitFor();
        await settle(page);
        widths[entry.route] = await scrollWidth(page);
        await shots.take(page, `mobile-${entry.shot}`);
      }
      expect(Object.entries(widths).filter(([, width]) => width > PHONE.width)).toEqual([]);
    });
  });

  it('keeps an open feed page live through a gateway crash: a post stored while the gateway is down appears once it is back, once, without a reload', async () => {
    await inPage(DESKTOP, 'gateway-crash', async (page) => {
      const w = world(false);
      if (!suite) throw new Error('the apps did not start');
      const crashing = suite;
      await signUp(page, w, `crash-${Date.now()}@example.com`);
      const tag = `crash${randomBytes(3).toString('hex')}`;
      await openPage(page, 'Tracks');
      await field(page, 'Hashtag').fill(tag);
      await button(page, 'Add track').click();
      await page.getByRole('listitem').filter({ hasText: `#${tag}` }).first().waitFor();
      await openPage(page, 'Feed');
      // A reload would drop this mark: the article must come into the same document.
      await page.evaluate('window.hwCrashMark = 1');
      const text = `Posted while the gateway was down ${randomBytes(4).toString('hex')} #${tag}`;
      // What the page asked and got from the crash on, for the failure message.
      const calls: string[] = [];
      const api = (url: string) => (url.includes('/v1/') ? new URL(url).pathname : undefined);
      page.on('response', (response) => void (api(response.url()) && calls.push(`${api(response.url())} ${response.status()}`)));
      page.on('requestfailed', (request) => void (api(request.url()) && calls.push(`${api(request.url())} ${request.failure()?.errorText ?? 'failed'}`)));
      await crashing.crashGateway(async () => {
        await w.xsim.injectPost({ author: 'crashwitness', text, lang: 'en' });
        const stored = async () => ((await w.pool.query('SELECT 1 FROM feed_items WHERE text = $1', [text])).rowCount ?? 0) === 1;
        await waitFor(stored, 30_000, 'the scanner to store the post while the gateway is down');
      });
      const article = page.getByRole('article').filter({ hasText: text });
      await article.waitFor({ timeout: 30_000 }).catch(async (error: Error) => {
        const alerts = await page.getByRole('alert').allTextContents();
        throw new Error(`${error.message}\nthe page's API calls since the crash: ${calls.join(', ')}\nits alerts: ${JSON.stringify(alerts)}`);
      });
      expect(await article.count()).toBe(1);
      expect(await page.evaluate('window.hwCrashMark')).toBe(1);
    });
  });
});
