import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * X's own answers, recorded from the live API, in `shared/reference/x-recorded` beside the repository (CI lays
 * shared/ next to the clone, as on a developer's machine).
 */
export const RECORDED_DIR = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'reference', 'x-recorded');

/** The body of one recorded answer, e.g. `twarc__tweets_lookup_media_2023-01-05`. */
export function recordedBody(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(RECORDED_DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
}
