import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * The dashboard's pages by the accessible names outside tests rely on (CONTRACT 6, apps/dashboard/README.md), as a
 * person reaches them: through the navigation, each page announced by its h1.
 */
export const PAGES = [
  { name: 'Overview', route: '/', shot: 'overview' },
  { name: 'Tracks', route: '/tracks', shot: 'tracks' },
  { name: 'Accounts', route: '/accounts', shot: 'accounts' },
  { name: 'Feed', route: '/feed', shot: 'feed' },
  { name: 'Notifications', route: '/notifications', shot: 'notifications' },
  { name: 'API key', route: '/api-key', shot: 'api-key' },
  { name: 'Security', route: '/security', shot: 'security' },
  { name: 'Billing', route: '/billing', shot: 'billing' },
] as const;

export type PageName = (typeof PAGES)[number]['name'];

export const heading = (page: Page, name: string): Locator => page.getByRole('heading', { level: 1, name, exact: true });
export const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });
/** A text field by its accessible name, as Chromium computes it (a hint or error inside the label would be part of it). */
export const field = (scope: Page | Locator, name: string): Locator => scope.getByRole('textbox', { name, exact: true });
export const select = (scope: Page | Locator, name: string): Locator => scope.getByRole('combobox', { name, exact: true });

/**
 * Polls a JavaScript expression in the page until it is truthy. Through the DevTools protocol, not Playwright's
 * waitForFunction, whose string predicates run through eval and so break under the dashboard's CSP (no unsafe-eval).
 */
export async function untilTrue(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting in the page for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Waits, at most a few seconds, until the page has nothing loading (no request for 500 ms, nothing marked
 * aria-busy), so a picture or a measurement shows the page with its data. The feed polls every 3 s, so this
 * only waits, never requires.
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
  await untilTrue(page, '!document.querySelector(\'[aria-busy="true"]\')', 5_000).catch(() => undefined);
}

/** PNGs of the pages visited, one file per name, in a folder of their own. */
export class Screenshots {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** The viewport's picture, or the whole page's with `fullPage`. */
  async take(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
    await settle(page);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(this.dir, `${name}.png`), fullPage: options.fullPage ?? false });
  }
}

/** Follows the navigation link `name` and waits for the page's h1; saves a screenshot when given a folder. */
export async function openPage(page: Page, name: PageName, shots?: Screenshots): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  await heading(page, name).waitFor();
  const entry = PAGES.find((candidate) => candidate.name === name);
  if (shots && entry) await shots.take(page, entry.shot);
}

/** The document's scroll width in CSS pixels: wider than the viewport when something overflows horizontally. */
export async function scrollWidth(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth'));
}
