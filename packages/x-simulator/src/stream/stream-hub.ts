import type { Response } from 'express';
import type { FieldSelection } from '../fields/field-selection';
import type { Problems } from '../http/problems';
import { setXHeaders, xJson } from '../http/x-response';
import { QuerySyntaxError, type QueryNode } from '../query/query-ast';
import { matchesQuery } from '../query/query-matcher';
import { parseQuery } from '../query/query-parser';
import type { Serializer } from '../fields/serializer';
import type { SimulatorSettings } from '../simulator-options';
import { SnowflakeIds } from '../store/snowflake';
import type { SimPost, SimStore } from '../store/sim-store';

/** One filtered-stream rule of one app, with its parsed query. */
export interface StreamRule {
  id: string;
  num: bigint;
  value: string;
  tag: string | undefined;
  tree: QueryNode;
}

export interface RuleInput {
  value: string;
  tag?: string | undefined;
}

/** An open filtered-stream connection. */
interface StreamConnection {
  id: number;
  token: string;
  res: Response;
  selection: FieldSelection;
  openedAt: number;
  stalled: boolean;
  delivered: number;
  keepAlive: NodeJS.Timeout;
}

export interface StreamConnectionStatus {
  id: number;
  openedAt: string;
  stalled: boolean;
  postsDelivered: number;
}

export interface StreamStatus {
  connections: StreamConnectionStatus[];
  /** Rules per app, summed over the configured app tokens. */
  rules: number;
  /** Posts written to any connection since the last reset. */
  postsDelivered: number;
}

type Json = Record<string, unknown>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * X's filtered stream: each app's rules (parsed with the search query parser), its one open connection, and
 * delivery of every post the moment it is created to the connections whose rules match it then. Nothing is
 * buffered for an app without a connection (backfill is Enterprise-only).
 */
export class StreamHub {
  private readonly rulesByToken = new Map<string, Map<string, StreamRule>>();
  private readonly connections = new Map<number, StreamConnection>();
  private readonly ruleIds: SnowflakeIds;
  private nextConnectionId = 1;
  private delivered = 0;
  private readonly pendingDeliveries = new Set<NodeJS.Timeout>();

  constructor(
    private readonly settings: SimulatorSettings,
    private readonly store: SimStore,
    private readonly serializer: Serializer,
    private readonly problems: Problems,
    private readonly now: () => number,
    /** Hears the billable resources of each delivered line (X bills every post the stream delivers). */
    private readonly onServed: (postsServed: number, usersServed: number) => void = () => undefined,
  ) {
    this.ruleIds = new SnowflakeIds((id) => [...this.rulesByToken.values()].some((rules) => rules.has(id.toString())));
    store.onPostCreated((post) => this.postCreated(post));
  }

  rules(token: string): StreamRule[] {
    return [...(this.rulesByToken.get(token)?.values() ?? [])].sort((a, b) => (a.num < b.num ? -1 : a.num > b.num ? 1 : 0));
  }

  ruleCount(token: string): number {
    return this.rulesByToken.get(token)?.size ?? 0;
  }

  /**
   * Adds rules as X does: each value parsed (and held to the rule length), duplicates of a stored rule or of
   * an earlier one in the same request reported per rule, the cap checked against the valid ones. The request
   * is all or nothing: any invalid, duplicate or over-the-cap rule creates none. `dryRun` only validates.
   */
  addRules(token: string, inputs: readonly RuleInput[], dryRun: boolean): Json {
    const stored = this.rulesByToken.get(token) ?? new Map<string, StreamRule>();
    const byValue = new Map([...stored.values()].map((rule) => [rule.value, rule] as const));
    const errors: Json[] = [];
    const candidates: StreamRule[] = [];
    let invalid = 0;
    for (const input of inputs) {
      const duplicate = byValue.get(input.value);
      if (duplicate) {
        errors.push(this.problems.duplicateRule(input.value, duplicate.id));
        invalid += 1;
        continue;
      }
      let tree: QueryNode;
      try {
        tree = parseQuery(input.value, this.settings.streamRuleMaxLength);
      } catch (error) {
        if (!(error instanceof QuerySyntaxError)) throw error;
        errors.push(this.problems.invalidRule(input.value, error.message));
        invalid += 1;
        continue;
      }
      const num = this.ruleIds.next(this.now());
      const rule: StreamRule = { id: num.toString(), num, value: input.value, tag: input.tag, tree };
      byValue.set(rule.value, rule);
      candidates.push(rule);
    }
    const valid = candidates.length;
    if (stored.size + valid > this.settings.streamMaxRules) errors.push(this.problems.ruleCap(this.settings.streamMaxRules));
    const create = errors.length === 0 && !dryRun;
    if (create) {
      for (const rule of candidates) stored.set(rule.id, rule);
      this.rulesByToken.set(token, stored);
    }
    const body: Json = {};
    if (errors.length === 0 && candidates.length > 0) body.data = candidates.map((rule) => this.describe(rule));
    if (errors.length > 0) body.errors = errors;
    body.meta = {
      sent: iso(this.now()),
      summary: { created: create ? valid : 0, not_created: create ? 0 : inputs.length, valid, invalid },
    };
    return body;
  }

  /** Deletes by id or by value (`values` of X's DeleteRulesRequest), or every rule; unknown ones are reported. */
  deleteRules(token: string, target: { ids?: readonly string[]; values?: readonly string[] } | 'all', dryRun: boolean): Json {
    const stored = this.rulesByToken.get(token) ?? new Map<string, StreamRule>();
    const errors: Json[] = [];
    const doomed = new Set<string>();
    let asked = 0;
    if (target === 'all') {
      for (const id of stored.keys()) doomed.add(id);
      asked = doomed.size;
    } else {
      for (const id of target.ids ?? []) {
        asked += 1;
        if (stored.has(id)) doomed.add(id);
        else errors.push(this.problems.ruleNotFound(id));
      }
      for (const value of target.values ?? []) {
        asked += 1;
        const rule = [...stored.values()].find((candidate) => candidate.value === value);
        if (rule) doomed.add(rule.id);
        else errors.push(this.problems.ruleNotFound(value));
      }
    }
    if (!dryRun) for (const id of doomed) stored.delete(id);
    const body: Json = {};
    if (errors.length > 0) body.errors = errors;
    const deleted = dryRun ? 0 : doomed.size;
    body.meta = { sent: iso(this.now()), summary: { deleted, not_deleted: asked - deleted } };
    return body;
  }

  describe(rule: StreamRule): Json {
    const out: Json = { id: rule.id, value: rule.value };
    if (rule.tag !== undefined) out.tag = rule.tag;
    return out;
  }

  hasConnection(token: string): boolean {
    return [...this.connections.values()].some((connection) => connection.token === token);
  }

  /**
   * Takes over an accepted connect: 200, chunked JSON lines, keep-alives, until either side closes. The
   * stream is never gzipped, whatever Accept-Encoding says (identity is always an acceptable answer): a
   * client reading lines off the socket (axios with `decompress: false` still advertises gzip) gets each post
   * the moment it is written.
   */
  open(token: string, res: Response, selection: FieldSelection): void {
    res.status(200);
    setXHeaders(res, 'application/json', this.now());
    res.set('Transfer-Encoding', 'chunked');
    res.flushHeaders();
    const id = this.nextConnectionId;
    this.nextConnectionId += 1;
    const connection: StreamConnection = {
      id,
      token,
      res,
      selection,
      openedAt: this.now(),
      stalled: false,
      delivered: 0,
      keepAlive: setInterval(() => {
        if (!connection.stalled) res.write('\r\n');
      }, this.settings.streamKeepAliveMs),
    };
    this.connections.set(id, connection);
    res.on('close', () => this.forget(connection));
  }

  /** Ends every open connection; `operational` first writes X's operational-disconnect error line. Returns how many. */
  disconnect(operational: boolean): number {
    const open = [...this.connections.values()];
    for (const connection of open) {
      this.forget(connection);
      if (operational) connection.res.end(`${xJson(this.problems.operationalDisconnect())}\r\n`);
      else connection.res.destroy();
    }
    return open.length;
  }

  /** Open connections go silent (no posts, no keep-alives) but stay open; posts matched meanwhile are dropped. */
  stall(): number {
    for (const connection of this.connections.values()) connection.stalled = true;
    return this.connections.size;
  }

  resume(): number {
    for (const connection of this.connections.values()) connection.stalled = false;
    return this.connections.size;
  }

  status(): StreamStatus {
    let rules = 0;
    for (const stored of this.rulesByToken.values()) rules += stored.size;
    return {
      connections: [...this.connections.values()].map((connection) => ({
        id: connection.id,
        openedAt: iso(connection.openedAt),
        stalled: connection.stalled,
        postsDelivered: connection.delivered,
      })),
      rules,
      postsDelivered: this.delivered,
    };
  }

  /** Closes connections and forgets rules and counters. */
  reset(): void {
    this.disconnect(false);
    for (const timer of this.pendingDeliveries) clearTimeout(timer);
    this.pendingDeliveries.clear();
    this.rulesByToken.clear();
    this.ruleIds.reset();
    this.delivered = 0;
  }

  private forget(connection: StreamConnection): void {
    clearInterval(connection.keepAlive);
    this.connections.delete(connection.id);
  }

  private postCreated(post: SimPost): void {
    if (this.connections.size === 0) return;
    if (this.settings.streamLatencyMs === 0) {
      this.deliver(post);
      return;
    }
    const timer = setTimeout(() => {
      this.pendingDeliveries.delete(timer);
      this.deliver(post);
    }, this.settings.streamLatencyMs);
    this.pendingDeliveries.add(timer);
  }

  /** Writes the post to every open connection whose app has a rule matching it now, listing every such rule. */
  private deliver(post: SimPost): void {
    const author = this.store.userById(post.authorId);
    const repliedToUser = post.inReplyToUserId ? this.store.userById(post.inReplyToUserId) : undefined;
    for (const connection of this.connections.values()) {
      if (connection.stalled) continue;
      const matching = this.rules(connection.token).filter((rule) => matchesQuery(rule.tree, post, { author, repliedToUser }));
      if (matching.length === 0) continue;
      const serialized = this.serializer.posts([post], connection.selection);
      const line: Json = { data: serialized.data[0] };
      if (serialized.includes) line.includes = serialized.includes;
      line.matching_rules = matching.map((rule) => (rule.tag === undefined ? { id: rule.id } : { id: rule.id, tag: rule.tag }));
      connection.res.write(`${xJson(line)}\r\n`);
      connection.delivered += 1;
      this.delivered += 1;
      this.onServed(serialized.postsServed, serialized.usersServed);
    }
  }
}
