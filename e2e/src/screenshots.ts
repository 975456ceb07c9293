// `npm run screenshots`: the README's pictures, taken again from the demo `npm start` runs (start it first, let
// it run a minute so the feed and the charts have something to show). Signs in as the demo account with the
// password npm start keeps in .data/demo.json and writes:
//   docs/screenshots/{overview,feed,notifications}.png   the README's three, 1440 px wide
//   .data/screenshots/{desktop,phone}-<page>.png        every page at 1440 px and at 375 px, to look at
// and fails when a page is wider than a 375 px screen. `-- --url http://localhost:3000` for another gateway.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './harness/chromium';
import { button, field, heading, PAGES, Screenshots, scrollWidth, settle } from './harness/dashboard-pages';

const ROOT = path.resolve(__dirname, '../..');
// The README's pictures: the overview whole (notices, alerts, latency and cost), the others as a screen shows them.
const README_SHOTS: Record<string, { fullPage: boolean }> = { overview: { fullPage: true }, feed: { fullPage: false }, notifications: { fullPage: false } };
const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 375, height: 812 } };

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

function demoPassword(): { email: string; password: string } {
  const file = path.join(ROOT, '.data/demo.json');
  try {
    const { password } = JSON.parse(readFileSync(file, 'utf8')) as { password?: string };
    if (password) return { email: 'demo@hashwatch.local', password };
  } catch {
    // Reported below.
  }
  throw new Error(`no demo password in ${file}: run npm start first`);
}

async function signIn(page: Page, origin: string): Promise<void> {
  const { email, password } = demoPassword();
  await page.goto(`${origin}/signin`);
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await button(page, 'Sign in').click();
  await heading(page, 'Overview').waitFor();
}

/** Every page in one viewport, each saved as `<label>-<page>.png`; answers the pages wider than the viewport. */
async function walk(browser: Browser, origin: string, label: keyof typeof VIEWPORTS, shots: Screenshots, readme?: Screenshots): Promise<string[]> {
  const viewport = VIEWPORTS[label];
  const context = await browser.newContext({ viewport });
  const overflowing: string[] = [];
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, origin);
    for (const entry of PAGES) {
      await page.goto(`${origin}${entry.route}`);
      await heading(page, entry.name).waitFor();
      await settle(page);
      await shots.take(page, `${label}-${entry.shot}`);
      const readmeShot = README_SHOTS[entry.shot];
      if (readme && readmeShot) await readme.take(page, entry.shot, readmeShot);
      const width = await scrollWidth(page);
      if (width > viewport.width) overflowing.push(`${entry.route} is ${width} px wide at ${viewport.width} px`);
    }
  } finally {
    await context.close();
  }
  return overflowing;
}

async function main(): Promise<void> {
  const origin = option('url', 'http://localhost:3000').replace(/\/$/, '');
  const readme = new Screenshots(path.join(ROOT, 'docs/screenshots'));
  const look = new Screenshots(path.join(ROOT, '.data/screenshots'));
  const browser = await launchChromium();
  try {
    const overflowing = [...(await walk(browser, origin, 'desktop', look, readme)), ...(await walk(browser, origin, 'phone', look))];
    process.stdout.write(`README pictures in ${readme.dir}; every page at 1440 and 375 px in ${look.dir}\n`);
    if (overflowing.length > 0) throw new Error(`pages wider than the screen:\n  ${overflowing.join('\n  ')}`);
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
