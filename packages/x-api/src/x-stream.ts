import type { IncomingMessage } from 'node:http';
import type { Logger } from '@hashwatch/logger';
import { normalizePostLookup } from './normalize-response';
import { streamLineSchema } from './x-response.schema';
import type { XPost } from './x-types';

/** A filtered-stream rule as X stores it. */
export interface XStreamRule {
  id: string;
  value: string;
  tag?: string | undefined;
}

export interface XStreamRuleInput {
  value: string;
  tag?: string;
}

/** One refused rule (or the whole request, for `rule-cap`): `type` is the end of X's problem type URL. */
export interface XStreamRuleError {
  value?: string;
  id?: string;
  type: 'rule-cap' | 'invalid-rules' | 'duplicate-rules' | (string & {});
  detail: string;
}

export interface XStreamRuleChange {
  created: XStreamRule[];
  deleted: number;
  errors: XStreamRuleError[];
}

/** A post delivered by the filtered stream, normalised as search pages are, with the rules it matched. */
export interface XStreamPost {
  post: XPost;
  matchingRules: { id: string; tag?: string | undefined }[];
  /** Date.now() when its line was read. */
  receivedAt: number;
}

export type XStreamEndReason = 'aborted' | 'timeout' | 'closed' | 'operational_disconnect';

export interface XStreamEnd {
  reason: XStreamEndReason;
  detail?: string;
  /** Lines that were neither a keep-alive, a post nor an error object: logged and skipped. */
  malformedLines?: number;
  /** Posts handed to onPost on this connection. */
  posts?: number;
}

export interface OpenStreamOptions {
  /** Aborting ends the stream with reason 'aborted'. */
  signal: AbortSignal;
  /** No byte for this long ends the stream with reason 'timeout'. Default {@link STREAM_READ_TIMEOUT_MS}. */
  readTimeoutMs?: number;
  /** After the 200 arrives. */
  onConnected?: (at: number) => void;
  /** Every chunk received: keep-alives, posts, anything. */
  onActivity?: (at: number) => void;
  /** Awaited in order (back-pressure): the next line is not handled before it resolves. A rejection closes the stream and rejects openStream with it. */
  onPost: (event: XStreamPost) => void | Promise<void>;
}

/** X sends a keep-alive every 20 s and advises a 20 s read timeout; 10 s more absorbs a late keep-alive. */
export const STREAM_KEEPALIVE_MS = 20_000;
export const STREAM_READ_TIMEOUT_MARGIN_MS = 10_000;
export const STREAM_READ_TIMEOUT_MS = STREAM_KEEPALIVE_MS + STREAM_READ_TIMEOUT_MARGIN_MS;

/**
 * X's reconnect advice for the filtered stream (docs.x.com, handling disconnections): after network errors
 * back off linearly, +250 ms per attempt, up to 16 s; after HTTP errors exponentially from 5 s, doubling, up to
 * 320 s; after a 429 exponentially from 60 s, doubling (X names no ceiling; the doubling stops at 2^20 to stay
 * finite). `attempt` starts at 1 (X also advises one immediate reconnect first; that is the caller's choice).
 */
export function streamReconnectDelayMs(kind: 'network' | 'http' | 'rate_limited', attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer from 1, got ${attempt}`);
  const doublings = Math.min(attempt - 1, 20);
  switch (kind) {
    case 'network':
      return Math.min(250 * attempt, 16_000);
    case 'http':
      return Math.min(5_000 * 2 ** doublings, 320_000);
    case 'rate_limited':
      return 60_000 * 2 ** doublings;
  }
}

const isType = (type: string | undefined, name: string) => type !== undefined && type.endsWith(`/2/problems/${name}`);

type ReadLine =
  | { kind: 'post'; event: Omit<XStreamPost, 'receivedAt'> }
  | { kind: 'end'; end: XStreamEnd }
  | { kind: 'error'; types: string[] }
  | { kind: 'malformed'; reason: string };

/** One non-blank line of the stream: a post, X's operational-disconnect, another error object, or unreadable. */
function readLine(line: string): ReadLine {
  let parsed;
  try {
    parsed = streamLineSchema.safeParse(JSON.parse(line));
  } catch {
    return { kind: 'malformed', reason: 'json' };
  }
  if (!parsed.success) return { kind: 'malformed', reason: 'schema' };
  const body = parsed.data;
  if (body.data) {
    const [post] = normalizePostLookup({ data: [body.data], includes: body.includes }).posts;
    if (post) return { kind: 'post', event: { post, matchingRules: (body.matching_rules ?? []).map(({ id, tag }) => ({ id, tag })) } };
  }
  const problem = body.errors?.find((error) => isType(error.type, 'operational-disconnect'));
  if (problem) return { kind: 'end', end: { reason: 'operational_disconnect', detail: problem.disconnect_type ?? problem.detail ?? problem.title ?? 'operational disconnect' } };
  if (body.errors && body.errors.length > 0) return { kind: 'error', types: body.errors.map((error) => error.type ?? 'about:blank') };
  return { kind: 'malformed', reason: 'neither post nor error' };
}

/**
 * Reads an open filtered stream until it ends: splits it into lines, treats blank ones as keep-alives, hands
 * each post to `onPost` in order (awaited), ends on X's operational-disconnect line, and skips (and counts)
 * lines it cannot read. The read timeout runs while waiting for bytes, not while onPost works.
 */
export async function readStream(stream: IncomingMessage, options: OpenStreamOptions, logger: Logger): Promise<XStreamEnd> {
  const readTimeoutMs = options.readTimeoutMs ?? STREAM_READ_TIMEOUT_MS;
  let malformedLines = 0;
  let posts = 0;
  let ending: XStreamEnd | null = null;
  let timer: NodeJS.Timeout | undefined;
  let handlerFailure: { error: unknown } | null = null;

  const stop = (end: XStreamEnd) => {
    ending ??= end;
    stream.destroy();
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stop({ reason: 'timeout', detail: `no data for ${readTimeoutMs} ms` }), readTimeoutMs);
  };
  const onAbort = () => stop({ reason: 'aborted' });

  // Returns an end when the line ends the stream.
  const handle = async (line: string): Promise<XStreamEnd | null> => {
    const read = readLine(line);
    if (read.kind === 'post') {
      posts += 1;
      try {
        await options.onPost({ ...read.event, receivedAt: Date.now() });
      } catch (error) {
        handlerFailure = { error };
        return { reason: 'closed', detail: 'onPost failed' };
      }
      return null;
    }
    if (read.kind === 'end') return read.end;
    if (read.kind === 'malformed') {
      malformedLines += 1;
      logger.warn('x stream line skipped', { reason: read.reason, length: line.length, malformedLines });
    } else logger.warn('x stream error line', { types: read.types });
    return null;
  };

  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) stop({ reason: 'aborted' });
  arm();
  let buffer = '';
  try {
    stream.setEncoding('utf8');
    for await (const chunk of stream) {
      options.onActivity?.(Date.now());
      arm();
      buffer += String(chunk);
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '').trim();
        buffer = buffer.slice(newline + 1);
        if (line !== '') {
          // The read timeout measures X's silence, not ours: it pauses while the line is handled.
          clearTimeout(timer);
          const end = await handle(line);
          if (end) {
            stop(end);
            break;
          }
          if (ending) break;
          arm();
        }
        newline = buffer.indexOf('\n');
      }
      if (ending) break;
    }
  } catch (error) {
    if (!ending) logger.info('x stream read failed', { error: (error as Error).message });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    stream.destroy();
  }
  if (handlerFailure) throw handlerFailure.error;
  const end: XStreamEnd = ending ?? { reason: 'closed' };
  return { ...end, malformedLines, posts };
}
