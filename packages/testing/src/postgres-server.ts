import { readFileSync } from 'node:fs';
import pg from 'pg';

/** An OS user a server that refuses root runs as, under root: `postgres`, else `nobody`; undefined when not root. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/** PostgreSQL and PgBouncer refuse root: under root they run as this user (as infra/private-postgres.mjs does). */
export function unprivilegedUser(what: string): ServerUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const lines = readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of ['postgres', 'nobody']) {
    const fields = lines.find((line) => line.split(':')[0] === name)?.split(':');
    if (fields) return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error(`${what} cannot run as root and there is no "postgres" or "nobody" OS user`);
}

/** Whether a PostgreSQL (or a pooler in front of one) at `url` answers a query within a second. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
