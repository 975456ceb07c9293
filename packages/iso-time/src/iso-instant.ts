// ISO 8601 date and time with a zone, extended or basic format: 2026-11-22T01:24:59.123Z,
// 2026-11-22T03:24:59+02:00, 20261122T012459+0200, 2026-11-22T01:24Z. Seconds and fraction are optional.
const ISO_WITH_ZONE =
  /^(\d{4})-?(\d{2})-?(\d{2})[Tt](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/**
 * The instant an ISO 8601 date-time with a zone names (the API takes any ISO 8601 with a zone, and refuses
 * one without), truncated to milliseconds; null when the text is not one or names an impossible date.
 * `Date.parse` is not enough: it accepts text without a zone (as local time) and rejects `+02` or `+0200`.
 */
export function isoInstant(text: string): Date | null {
  const match = ISO_WITH_ZONE.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '0', , sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [y, mo, d, h, mi, s] = fields;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null;
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const instant = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  instant.setUTCFullYear(y, mo - 1, d);
  instant.setUTCHours(h, mi, s, ms);
  return new Date(instant.getTime() - offsetMs);
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
