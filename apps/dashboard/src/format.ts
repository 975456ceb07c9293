/** How the dashboard writes instants: English, the browser's time zone. */

/** A day: "Nov 26, 2026" (`short`) or "November 26, 2026" (`long`). */
export function formatDay(iso: string, month: 'short' | 'long' = 'short'): string {
  return new Date(iso).toLocaleDateString('en', { year: 'numeric', month, day: 'numeric' });
}

/** A moment to the second, its date `medium` ("Nov 26, 2026") or `short` ("11/26/26"). */
export function formatTime(iso: string, dateStyle: 'medium' | 'short' = 'medium'): string {
  return new Date(iso).toLocaleString('en', { dateStyle, timeStyle: 'medium' });
}
