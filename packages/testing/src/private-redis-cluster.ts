import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childRegistry } from './child-registry';
import { waitFor } from './wait-for';

const MASTERS = 3;
// A node's cluster bus listens on its port + 10000, so node ports stay below 55536.
const PORT_RANGE = { from: 20_000, to: 45_000 };

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A free port whose bus port (+10000) is free too. */
async function freeNodePort(taken: Set<number>): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

function cli(port: number, password: string | undefined, ...args: string[]): string {
  const auth = password ? ['-a', password, '--no-auth-warning'] : [];
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...auth, ...args], { encoding: 'utf8', timeout: 10_000 });
  return result.stdout?.trim() ?? '';
}

/**
 * A three-master Redis Cluster of this run's own (never a shared server, so a master may be killed and restarted):
 * `redis-server` from PATH with cluster mode and append-only on, each node's files in `dir`, joined with
 * `redis-cli --cluster create` and no replicas. A master killed and started again comes back with its slots
 * (nodes.conf) and its data (the append-only file).
 */
export class PrivateRedisCluster {
  private readonly ports: number[] = [];
  private readonly children = new Map<number, ChildProcess>();

  /** With `password`, every node requires it (requirepass, and masterauth between nodes), as a production cluster does. */
  constructor(
    private readonly dir: string,
    readonly password?: string,
  ) {}

  /** `host:port,…` for REDIS_CLUSTER_NODES. */
  get nodes(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  async start(): Promise<void> {
    const taken = new Set<number>();
    for (let i = 0; i < MASTERS; i += 1) {
      const port = await freeNodePort(taken);
      taken.add(port).add(port + 10_000);
      this.ports.push(port);
      this.startNode(port);
    }
    await waitFor(() => this.ports.every((port) => cli(port, this.password, 'PING') === 'PONG'), 15_000, 'the cluster nodes answering PING', 100);
    const auth = this.password ? ['-a', this.password, '--no-auth-warning'] : [];
    const created = spawnSync('redis-cli', [...auth, '--cluster', 'create', ...this.ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await this.untilHealthy();
  }

  /** The port of the master that holds `key`'s slot. */
  masterOf(key: string): number {
    const [first] = this.ports;
    if (first === undefined) throw new Error('the cluster has not started');
    const slot = Number(cli(first, this.password, 'CLUSTER', 'KEYSLOT', key));
    for (const line of cli(first, this.password, 'CLUSTER', 'NODES').split('\n')) {
      const fields = line.split(' ');
      const port = Number(/:(\d+)@/.exec(fields[1] ?? '')?.[1]);
      for (const range of fields.slice(8)) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) return port;
      }
    }
    throw new Error(`no master holds the slot of ${key}`);
  }

  /**
   * Hands the slot of `key` to the master at `toPort`, as an operator's reshard does: a client that knew the old
   * owner is answered MOVED. The slot must hold no keys (nothing is migrated).
   */
  moveEmptySlot(key: string, toPort: number): void {
    const slot = Number(cli(toPort, this.password, 'CLUSTER', 'KEYSLOT', key));
    if (Number(cli(this.masterOf(key), this.password, 'CLUSTER', 'COUNTKEYSINSLOT', String(slot))) !== 0) throw new Error(`the slot of ${key} holds keys`);
    const id = cli(toPort, this.password, 'CLUSTER', 'MYID');
    // The new owner first: the others then agree with it at once, without waiting for its gossip.
    for (const port of [toPort, ...this.ports.filter((other) => other !== toPort)]) {
      const answer = cli(port, this.password, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', id);
      if (answer !== 'OK') throw new Error(`CLUSTER SETSLOT on ${port}: ${answer}`);
    }
  }

  /** Every master's port, the one holding the most keys first (`DBSIZE`). */
  mastersByKeys(): number[] {
    const keys = new Map(this.ports.map((port) => [port, Number(cli(port, this.password, 'DBSIZE')) || 0]));
    return [...this.ports].sort((a, b) => (keys.get(b) ?? 0) - (keys.get(a) ?? 0));
  }

  /**
   * Stops one node and resolves once it is gone: SIGKILL (a crash), or SIGTERM (a restart by its supervisor:
   * Redis writes its append-only file out, then exits).
   */
  async kill(port: number, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    const child = this.children.get(port);
    this.children.delete(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  /** Starts a killed node again on its port, with its files, and waits until the cluster is whole. */
  async restart(port: number): Promise<void> {
    this.startNode(port);
    await this.untilHealthy();
  }

  /** Kills every node. */
  async stop(): Promise<void> {
    await Promise.all([...this.children.keys()].map((port) => this.kill(port)));
  }

  private startNode(port: number): void {
    const dir = path.join(this.dir, `node-${port}`);
    mkdirSync(dir, { recursive: true });
    const out = openSync(path.join(dir, 'redis.log'), 'a');
    const args = [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf'),
      '--cluster-node-timeout', '5000', '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction', '--dir', dir, '--daemonize', 'no',
      ...(this.password ? ['--requirepass', this.password, '--masterauth', this.password] : []),
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', out, out] });
    closeSync(out);
    childRegistry.add(child);
    this.children.set(port, child);
  }

  private async untilHealthy(): Promise<void> {
    await waitFor(() => this.ports.every((port) => cli(port, this.password, 'CLUSTER', 'INFO').includes('cluster_state:ok')), 60_000, 'cluster_state:ok on every node', 100);
  }
}
