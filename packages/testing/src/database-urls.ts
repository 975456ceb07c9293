/** The server tests run against: DATABASE_URL (set by `npm test`) or the suite's default (docs/CONFIGURATION.md). */
export function baseDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/hashwatch';
}

export function databaseUrlFor(name: string, base = baseDatabaseUrl()): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The maintenance database of the same server, used to create and drop test databases. */
export function adminUrl(base = baseDatabaseUrl()): string {
  return databaseUrlFor('postgres', base);
}
