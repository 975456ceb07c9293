/** What the overview says about one source's scanning. */
export type Health =
  | { state: 'failing'; detail: string }
  | { state: 'stale'; detail: string }
  | { state: 'waiting'; detail: string }
  | { state: 'ok'; detail: string };

export interface ScannedSource {
  created_at: string;
  last_scanned_at: string | null;
  last_post_at: string | null;
  scan_error: string | null;
}

/** A scan this many cadences late means the source is not being scanned (workers down, or a budget spent). */
const LATE_CADENCES = 3;
/** Slack on top, for a source added a moment ago or a scan in flight. */
const GRACE_MS = 60_000;

/** "3 min ago", "2 h ago": how long ago `iso` was, to the nearest sensible unit. */
export function ago(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} days ago`;
}

/**
 * Failing when the last scan failed (the API's reason); stale when no scan happened for three cadences (it should
 * have); waiting before the first scan; else ok, with when the last post was seen.
 */
export function sourceHealth(source: ScannedSource, scanIntervalSeconds: number, now: Date): Health {
  if (source.scan_error) return { state: 'failing', detail: source.scan_error };
  const lateAfter = LATE_CADENCES * scanIntervalSeconds * 1000 + GRACE_MS;
  if (!source.last_scanned_at) {
    return now.getTime() - Date.parse(source.created_at) > lateAfter
      ? { state: 'stale', detail: 'never scanned since it was added' }
      : { state: 'waiting', detail: 'first scan pending' };
  }
  if (now.getTime() - Date.parse(source.last_scanned_at) > lateAfter) {
    return { state: 'stale', detail: `not scanned since ${ago(source.last_scanned_at, now)}` };
  }
  const posts = source.last_post_at ? `last post ${ago(source.last_post_at, now)}` : 'no post yet';
  return { state: 'ok', detail: `scanned ${ago(source.last_scanned_at, now)}, ${posts}` };
}
