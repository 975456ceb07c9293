/** ISO 8601 UTC with three digits of milliseconds (`2026-11-22T01:24:59.123Z`), as the API answers times; or null. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
