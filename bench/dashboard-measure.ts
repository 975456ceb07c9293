// How bench/dashboard-load.ts reads a page in Chromium: bytes from the DevTools Network events, main-thread time from
// Performance.getMetrics (ScriptDuration: JavaScript run; TaskDuration: every main-thread task, layout and paint
// included), and the moment a page is usable from a MutationObserver installed before any of the page's scripts.
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

export type ReadyKind = 'sign-in' | 'overview' | 'docs';

export interface ColdLoad {
  /** Bytes on the wire (headers included) of every script response: compressed as the server sent it. */
  scriptBytes: number;
  totalBytes: number;
  /** From navigation start (performance.timeOrigin) until the page is usable (see READY). */
  interactiveMs: number;
  scriptMs: number;
  taskMs: number;
  /** The Content-Encoding of the script responses. */
  encodings: string[];
}

export interface Navigation {
  /** Feed items (articles) on the page when it was measured. */
  items: number;
  scriptMs: number;
  taskMs: number;
  wallMs: number;
}

// Usable: the sign-in form's Email field is in the document and enabled (React renders it live: it takes input
// from then on); the overview's h1 is rendered; the reference lists the operations (its last-but-one section's path).
const READY = `(() => {
  const kind = '__KIND__';
  const usable = () => {
    if (kind === 'docs') return !!document.body && document.body.textContent.includes('/apikey/regenerate');
    if (kind === 'overview') return [...document.querySelectorAll('h1')].some((h) => h.textContent.trim() === 'Overview');
    return [...document.querySelectorAll('input')].some((input) => !input.disabled && [...(input.labels || [])].some((label) => label.textContent.trim().startsWith('Email')));
  };
  const check = () => { if (window.hwReadyAt === undefined && usable()) window.hwReadyAt = performance.now(); };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
  document.addEventListener('DOMContentLoaded', check);
})();`;

/**
 * Polls a JavaScript expression in the page until it is truthy. Through the DevTools protocol, not Playwright's
 * waitForFunction, whose string predicates run through eval and so break under the dashboard's CSP (no unsafe-eval).
 */
async function untilTrue(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting in the page for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function mainThreadSeconds(cdp: CDPSession): Promise<{ script: number; task: number }> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string) => metrics.find((metric) => metric.name === name)?.value ?? Number.NaN;
  return { script: value('ScriptDuration'), task: value('TaskDuration') };
}

/** Waits, at most 5 s, for the network to be quiet: lazy chunks and first data requests count in the load. */
async function quiet(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
}

/** One first load of `url` in `context` (whose cache is empty: a new context), with the bytes it moved. */
export async function coldLoad(context: BrowserContext, url: string, kind: ReadyKind): Promise<ColdLoad> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Performance.enable');
  const types = new Map<string, { type: string; encoding: string }>();
  let scriptBytes = 0;
  let totalBytes = 0;
  cdp.on('Network.responseReceived', (event) => {
    const headers = Object.fromEntries(Object.entries(event.response.headers).map(([key, value]) => [key.toLowerCase(), String(value)]));
    types.set(event.requestId, { type: event.type, encoding: headers['content-encoding'] ?? 'identity' });
  });
  cdp.on('Network.loadingFinished', (event) => {
    totalBytes += event.encodedDataLength;
    if (types.get(event.requestId)?.type === 'Script') scriptBytes += event.encodedDataLength;
  });
  await page.addInitScript(READY.replace('__KIND__', kind));
  await page.goto(url);
  await untilTrue(page, 'window.hwReadyAt !== undefined');
  const interactiveMs = Number(await page.evaluate('window.hwReadyAt'));
  if (kind === 'sign-in') {
    // It accepts input: what is typed is in the field.
    const email = page.getByRole('textbox', { name: 'Email', exact: true });
    await email.fill('someone@example.com');
    if ((await email.inputValue()) !== 'someone@example.com') throw new Error('the sign-in form took no input');
  }
  await quiet(page);
  const time = await mainThreadSeconds(cdp);
  const encodings = [...new Set([...types.values()].filter((entry) => entry.type === 'Script').map((entry) => entry.encoding))];
  await page.close();
  return { scriptBytes, totalBytes, interactiveMs, scriptMs: time.script * 1000, taskMs: time.task * 1000, encodings };
}

/**
 * From the overview, follows the navigation link `link` (a client-side route change: the bundle is loaded) and
 * measures the main thread until its h1 and, when `minItems` > 0, that many articles are rendered and painted.
 */
export async function spaNavigation(page: Page, origin: string, link: string, minItems: number): Promise<Navigation> {
  if (!page.url().startsWith(origin)) await page.goto(`${origin}/`);
  const nav = page.getByRole('navigation');
  await nav.getByRole('link', { name: 'Overview', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview', exact: true }).waitFor();
  await quiet(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const before = await mainThreadSeconds(cdp);
  const started = performance.now();
  await nav.getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
  if (minItems > 0) {
    // The feed shows a page of 50 and a button for the next: 100 items are two pages, as a person gets them.
    const older = page.getByRole('button', { name: 'Load older posts', exact: true });
    for (let shown = 0; ; ) {
      await untilTrue(page, `document.querySelectorAll('article').length > ${shown}`);
      shown = await page.getByRole('article').count();
      if (shown >= minItems) break;
      await older.click();
    }
  }
  // The frame that shows them: layout and paint of the list belong to its rendering.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))');
  const wallMs = performance.now() - started;
  const after = await mainThreadSeconds(cdp);
  const items = Number(await page.evaluate("document.querySelectorAll('article').length"));
  await cdp.detach();
  return { items, scriptMs: (after.script - before.script) * 1000, taskMs: (after.task - before.task) * 1000, wallMs };
}
