import { readFileSync } from 'node:fs';
import path from 'node:path';

// The repository root is four levels up from src/testing (and from dist/testing); the recordings sit in
// shared/ beside the clone, as CI places them.
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The folder of real X answers recorded from the live API (see its README). */
export const RECORDINGS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'reference', 'x-recorded');

/** The bytes of one recorded answer body, e.g. `tweepy__home_timeline` (no extension). */
export function recordedAnswerText(name: string): string {
  return readFileSync(path.join(RECORDINGS_DIR, `${name}.json`), 'utf8');
}

/** One recorded answer body, parsed. */
export function recordedAnswer(name: string): Record<string, unknown> {
  return JSON.parse(recordedAnswerText(name)) as Record<string, unknown>;
}
