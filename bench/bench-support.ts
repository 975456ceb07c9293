// Helpers every benchmark uses: the admin connection that creates and drops its databases, the machine line of
// its report, percentiles and CPU readings from Linux /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import pg from 'pg';
import { adminUrl } from '@hashwatch/testing';

/** Runs `work` on a connection to the server's admin database (CREATE / DROP DATABASE), closed afterwards. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** CPUs, memory and Node version, as every report's machine line gives them. */
export function machineDescription(): string {
  return `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
}

/** The nearest-rank percentile `p` (0-100) of ascending values; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** A process's /proc/<pid>/stat: its command name and its CPU seconds (user + system); undefined once it has ended, or off Linux. */
function procStat(pid: string): { comm: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by each process that matches (by pid and command name), by pid; empty off Linux. */
export function cpuSecondsWhere(match: (pid: string, comm: string) => boolean): Map<string, number> {
  const used = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return used;
  }
  for (const pid of pids) {
    const stat = procStat(pid);
    if (stat && match(pid, stat.comm)) used.set(pid, stat.seconds);
  }
  return used;
}

/** CPU seconds used so far by each of the given processes, by pid (those that have ended are left out). */
export function cpuSecondsOf(pids: readonly (number | string)[]): Map<string, number> {
  const used = new Map<string, number>();
  for (const pid of pids) {
    const stat = procStat(String(pid));
    if (stat) used.set(String(pid), stat.seconds);
  }
  return used;
}

/** CPU seconds used between two readings by the processes alive at the second (a process started in between counts whole). */
export function cpuBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
