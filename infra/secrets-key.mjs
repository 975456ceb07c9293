// The SECRETS_KEY of `npm start`: the environment's, else the one generated into .data/secrets.key on the
// first run. A database that outlived .data/ holds secrets sealed with another key; the apps that open
// secrets then stop at start-up, and `npm start` says how to recover.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redactUrl, say } from './output.mjs';
import { DATA_DIR } from './workspaces.mjs';

const SECRETS_KEY_FILE = path.join(DATA_DIR, 'secrets.key');

// How SecretsKeyMismatchError's message starts (packages/secrets, secrets-key-check.ts): the one line the
// gateway and the notifier print before they exit because SECRETS_KEY cannot open the stored secrets.
const KEY_MISMATCH_PREFIX = 'SECRETS_KEY (nor SECRETS_KEY_PREVIOUS';

export const isKeyMismatchLine = (line) => line.startsWith(KEY_MISMATCH_PREFIX);

export function secretsKey() {
  if (process.env.SECRETS_KEY) return process.env.SECRETS_KEY;
  if (existsSync(SECRETS_KEY_FILE)) return readFileSync(SECRETS_KEY_FILE, 'utf8').trim();
  mkdirSync(DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(SECRETS_KEY_FILE, `${key}\n`, { mode: 0o600, flag: 'wx' });
  say('generated SECRETS_KEY into .data/secrets.key');
  return key;
}

/** What to do when the database holds secrets sealed with another key than this start's SECRETS_KEY. */
export function keyMismatchHelp(databaseUrl) {
  const where = process.env.SECRETS_KEY ? 'the SECRETS_KEY in your environment' : '.data/secrets.key';
  return [
    `the database (${redactUrl(databaseUrl)}) holds secrets sealed with another SECRETS_KEY than ${where}`,
    '(a new clone, or .data/ deleted, while PostgreSQL kept the demo database). Either:',
    '  - start with the key they were sealed with: SECRETS_KEY=<old key> npm start (or put it back in .data/secrets.key);',
    '    to move to a new key, start with SECRETS_KEY=<new> SECRETS_KEY_PREVIOUS=<old> and run npm run admin -- secrets:reseal;',
    '  - or, for a demo database you can lose, drop it and start afresh: dropdb hashwatch (or another DATABASE_URL), then npm start.',
  ].join('\n');
}
