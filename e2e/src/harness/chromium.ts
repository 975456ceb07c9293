import { chromium, type Browser } from 'playwright-core';

/** Debian's package; `npm test` installs it, or passes another binary as CHROMIUM_PATH (infra/chromium.mjs). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

// Debian's Chromium under playwright-core hangs at start without these: no sandbox as root, no GPU, and nothing
// that reaches for the network on its own (this machine has none).
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile of its own (playwright-core's non-persistent launch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, timeout: 60_000 });
}
