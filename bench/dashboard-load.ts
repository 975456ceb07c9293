// The dashboard in headless Chromium against the real gateway: its first load and its feed page.
//
//   npm run build && flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/dashboard-load.ts
//
// Needs the built gateway and dashboard (apps/gateway/dist, apps/dashboard/dist), PostgreSQL (DATABASE_URL; the role
// must be able to CREATE DATABASE), Redis (REDIS_URL) and Chromium (CHROMIUM_PATH, default /usr/bin/chromium). Makes
// its own database and Redis prefix, starts `node apps/gateway/dist/main.js` on a free port, and removes them.
// DASHBOARD_BENCH_ROUNDS=<n> sets the rounds of each measurement (default 5; the median is reported).
// Goals: first load (cold cache) ≤ 200 KB of compressed JavaScript and interactive in under 1 s; the feed page
// renders 100 items in under 100 ms of scripting. Each figure beside a baseline of the same run: the gateway's
// /docs page for the first load, a navigation to the API key page (no list) for the feed.
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createAccount } from '@hashwatch/accounts';
import type { Database } from '@hashwatch/db';
import { generateSecretsKey, hashPassword } from '@hashwatch/secrets';
import { baseDatabaseUrl, freePort, startAppProcess, type AppProcess } from '@hashwatch/testing';
import { openScratch, type Scratch } from './bench-scratch';
import { machineDescription, percentile } from './bench-support';
import { coldLoad, spaNavigation, type ColdLoad, type Navigation } from './dashboard-measure';

const ROUNDS = Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 5);
const FEED_ITEMS = 150;
const EMAIL = 'bench@example.com';
const PASSWORD = 'correct horse battery staple';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Debian's Chromium under playwright-core: no sandbox as root, no GPU, nothing that reaches for the network itself.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const VIEWPORT = { width: 1440, height: 900 };
// What the goal is stated in: gzip, which every browser accepts (Chromium would also offer br and zstd).
const GZIP = { 'accept-encoding': 'gzip' };

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The account the pages show: active, a password to sign in with, and FEED_ITEMS posts in its feed. */
async function seedAccount(db: Database): Promise<void> {
  const owner = await createAccount(db.prisma, { email: EMAIL, planId: 'business' });
  await db.pool.query('UPDATE users SET password_hash = $2, rate_limit_per_minute = 100000 WHERE id = $1', [owner.accountId, await hashPassword(PASSWORD)]);
  await db.pool.query(
    `INSERT INTO feed_items (id, user_id, dedupe_key, type, hashtag, sources, x_post_id, author_id, author, author_name, text, url,
                             posted_at, detected_at, engagement_tracked, retweet_count, like_count, reply_count, retweeters, likers, repliers)
     SELECT 'post_bench' || g, $1, 'x:' || g, 'hashtag'::feed_item_type, 'btc', ARRAY['#btc'], (1860000000000000000 + g)::text,
            (g % 40)::text, '@user' || (g % 40), 'User number ' || (g % 40),
            'Post ' || g || ': ' || repeat('markets are moving today, ', 5) || '#btc $eth',
            'https://x.com/user' || (g % 40) || '/status/' || (1860000000000000000 + g),
            now() - (g * interval '1 minute') - interval '4 seconds', now() - (g * interval '1 minute'), false, g % 100, g % 1000, g % 10, '{}', '{}', '{}'
       FROM generate_series(1, $2::int) AS g`,
    [owner.accountId, FEED_ITEMS],
  );
}

/** `node apps/gateway/dist/main.js` on a free port, ready when /readyz answers 200; its log in the temp folder. */
async function startGateway(env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  return startAppProcess({
    app: 'gateway',
    entry: path.join(__dirname, '../apps/gateway/dist/main.js'),
    cwd: path.join(__dirname, '..'),
    label: `bench-dashboard-gateway-${port}`,
    env: { ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    port,
    readyPath: '/readyz',
    logDir: os.tmpdir(),
  });
}

/** A context signed in as the bench account: the session cookie a sign-in over HTTP answers. */
async function signedInContext(browser: Browser, origin: string): Promise<BrowserContext> {
  const answer = await fetch(`${origin}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
  const value = answer.headers.getSetCookie().find((line) => line.startsWith('hw_session='))?.split(';')[0]?.slice('hw_session='.length);
  if (!value) throw new Error(`sign-in answered ${answer.status} without a session cookie`);
  const context = await browser.newContext({ viewport: VIEWPORT, extraHTTPHeaders: GZIP });
  await context.addCookies([{ name: 'hw_session', value, url: origin }]);
  return context;
}

/** A first load in a new context: an empty cache, no cookie. */
async function signedOutLoad(browser: Browser, url: string, kind: 'sign-in' | 'docs'): Promise<ColdLoad> {
  const context = await browser.newContext({ viewport: VIEWPORT, extraHTTPHeaders: GZIP });
  try {
    return await coldLoad(context, url, kind);
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

function reportLoads(name: string, loads: ColdLoad[]): ColdLoad {
  const row: ColdLoad = {
    scriptBytes: median(loads.map((load) => load.scriptBytes)),
    totalBytes: median(loads.map((load) => load.totalBytes)),
    interactiveMs: median(loads.map((load) => load.interactiveMs)),
    scriptMs: median(loads.map((load) => load.scriptMs)),
    taskMs: median(loads.map((load) => load.taskMs)),
    encodings: [...new Set(loads.flatMap((load) => load.encodings))],
  };
  log(`  ${name}: JS ${kb(row.scriptBytes)} (${row.encodings.join(', ') || 'no JS'}), all ${kb(row.totalBytes)}; interactive ${row.interactiveMs.toFixed(0)} ms ` +
    `(rounds: ${loads.map((load) => load.interactiveMs.toFixed(0)).join(', ')}); scripting ${row.scriptMs.toFixed(1)} ms, main-thread tasks ${row.taskMs.toFixed(1)} ms`);
  return row;
}

function reportNavigations(name: string, navigations: Navigation[]): Navigation {
  const row: Navigation = {
    items: Math.min(...navigations.map((navigation) => navigation.items)),
    scriptMs: median(navigations.map((navigation) => navigation.scriptMs)),
    taskMs: median(navigations.map((navigation) => navigation.taskMs)),
    wallMs: median(navigations.map((navigation) => navigation.wallMs)),
  };
  log(`  ${name}: ${row.items} items; scripting ${row.scriptMs.toFixed(1)} ms (rounds: ${navigations.map((n) => n.scriptMs.toFixed(1)).join(', ')}), ` +
    `main-thread tasks ${row.taskMs.toFixed(1)} ms, click to rendered ${row.wallMs.toFixed(0)} ms`);
  return row;
}

async function measure(browser: Browser, origin: string): Promise<void> {
  log(`first load, cold cache (a new context per round, Accept-Encoding: gzip), median of ${ROUNDS}:`);
  const signIn: ColdLoad[] = [];
  const docs: ColdLoad[] = [];
  const overview: ColdLoad[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    docs.push(await signedOutLoad(browser, `${origin}/docs`, 'docs'));
    signIn.push(await signedOutLoad(browser, `${origin}/signin`, 'sign-in'));
    const context = await signedInContext(browser, origin);
    overview.push(await coldLoad(context, `${origin}/`, 'overview'));
    await context.close();
  }
  const base = reportLoads('/docs (baseline)', docs);
  const first = reportLoads('/signin, signed out', signIn);
  const over = reportLoads('/ (overview), signed in', overview);
  log(`  JS: ${kb(first.scriptBytes)} = ${(first.scriptBytes / 200_000).toFixed(2)}× the 200 KB budget (overview ${(over.scriptBytes / 200_000).toFixed(2)}×)`);
  log(`  interactive: ${(first.interactiveMs / 1000).toFixed(2)}× the 1 s goal; ${(first.interactiveMs / base.interactiveMs).toFixed(2)}× /docs (overview ${(over.interactiveMs / base.interactiveMs).toFixed(2)}×)`);

  log(`feed page, reached through the navigation once signed in (the bundle already loaded), median of ${ROUNDS}:`);
  const context = await signedInContext(browser, origin);
  const page: Page = await context.newPage();
  const feed: Navigation[] = [];
  const apiKey: Navigation[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    apiKey.push(await spaNavigation(page, origin, 'API key', 0));
    feed.push(await spaNavigation(page, origin, 'Feed', 100));
  }
  await context.close();
  const quiet = reportNavigations('API key page (baseline)', apiKey);
  const list = reportNavigations('Feed page', feed);
  log(`  feed scripting: ${(list.scriptMs / 100).toFixed(2)}× the 100 ms goal; ${(list.scriptMs / quiet.scriptMs).toFixed(2)}× the API key page's`);
}

async function main(): Promise<void> {
  let scratch: Scratch | undefined;
  let gateway: AppProcess | undefined;
  let browser: Browser | undefined;
  try {
    scratch = await openScratch('dashboard');
    await seedAccount(scratch.db);
    gateway = await startGateway({ DATABASE_URL: scratch.databaseUrl, REDIS_URL: scratch.redisUrl, QUEUE_PREFIX: scratch.prefix, SECRETS_KEY: generateSecretsKey() });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    log('## Dashboard load');
    log(`machine: ${machineDescription()}; Chromium ${browser.version()}`);
    log(`database: ${new URL(baseDatabaseUrl()).host}`);
    await measure(browser, `http://127.0.0.1:${gateway.port}`);
  } finally {
    await browser?.close();
    await gateway?.stop();
    await scratch?.dispose();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
