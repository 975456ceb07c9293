// The demo account `npm start` seeds: a Business account whose API key and dashboard password are kept in
// .data/demo.json (readable by its owner only), and, while it has none, tracks and a webhook channel to the local alert inbox, so posts visibly flow from
// x-sim to an alert.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { admin, adminOrThrow } from './admin-cli.mjs';
import { DevError } from './errors.mjs';
import { say, warn } from './output.mjs';
import { DATA_DIR, readJson } from './workspaces.mjs';

export const DEMO_EMAIL = 'demo@hashwatch.local';
const DEMO_FILE = path.join(DATA_DIR, 'demo.json');

/** Saves `fields` over what .data/demo.json holds (the key and the password are kept apart from each other's changes). */
function saveDemo(fields) {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(DEMO_FILE, `${JSON.stringify({ ...savedDemo(), ...fields }, null, 2)}\n`, { mode: 0o600 });
}

function savedDemo() {
  try {
    return readJson(DEMO_FILE);
  } catch {
    return undefined;
  }
}

/** Revokes the demo account's key for a new one, saved for the next runs. */
export function regenerateDemoKey(accountId, env) {
  const { api_key: apiKey } = adminOrThrow(['apikey:regenerate', '--account', accountId], env);
  saveDemo({ account_id: accountId, api_key: apiKey });
  say('issued a new API key for the demo account (the saved one was missing or stale)');
  return { account_id: accountId, api_key: apiKey };
}

/**
 * The demo's dashboard password: random on the first run of this checkout (never a published one: the gateway
 * answers on every interface), kept in .data/demo.json, and set at every start, so the one printed always works.
 * Setting it ends the demo's sessions: a restart signs the demo out.
 */
function setDemoPassword(accountId, env) {
  const password = savedDemo()?.password ?? `demo-${randomBytes(12).toString('base64url')}`;
  adminOrThrow(['account:password', '--account', accountId, '--password', password], env);
  saveDemo({ password });
  return password;
}

/** The demo account's id, API key and dashboard password: created on the first run, reused (or renewed when lost) after. */
export function demoAccount(env) {
  const account = findOrCreateDemo(env);
  return { ...account, password: setDemoPassword(account.account_id, env) };
}

function findOrCreateDemo(env) {
  const created = admin(['account:create', '--email', DEMO_EMAIL, '--plan', 'business'], env);
  if (created.ok) {
    saveDemo({ account_id: created.data.account_id, api_key: created.data.api_key });
    say(`created the demo account ${DEMO_EMAIL}`);
    return created.data;
  }
  if (created.error.code !== 'already_exists') {
    throw new DevError(`admin account:create failed: ${created.error.code}: ${created.error.message}`);
  }
  const { account_id: accountId } = adminOrThrow(['account:find', '--email', DEMO_EMAIL], env);
  const saved = savedDemo();
  if (saved?.account_id === accountId && saved.api_key) return saved;
  return regenerateDemoKey(accountId, env);
}

/**
 * Gives a fresh demo account something to watch (tags the simulator's generator posts about) and a
 * webhook channel to the local alert inbox. Only when the account has none yet: a demo the user
 * reconfigured is left alone.
 */
export async function prepareDemo(base, apiKey, inboxPort) {
  const call = async (method, route, body) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  try {
    const tracks = await call('GET', '/tracks');
    if (tracks.status === 200 && tracks.body.data.length === 0) {
      for (const hashtag of ['btc', 'eth', 'ai']) await call('POST', '/tracks', { hashtag, track_engagement: hashtag === 'btc' });
      say('demo account tracks #btc, #eth and #ai (and $BTC, $ETH)');
    }
    const channels = await call('GET', '/notifications');
    if (inboxPort && channels.status === 200 && channels.body.webhooks.length === 0) {
      const saved = await call('PUT', '/notifications', {
        webhooks: [{ url: `http://127.0.0.1:${inboxPort}/hashwatch`, format: 'json', bot_name: 'Hashwatch demo' }],
        bot: null,
      });
      if (saved.status === 200) say(`demo alerts go to the alert inbox: http://127.0.0.1:${inboxPort}/`);
      else warn(`could not create the demo alert channel (PUT /v1/notifications answered ${saved.status})`);
    }
  } catch (error) {
    warn(`could not prepare the demo account: ${error.message}`);
  }
}
