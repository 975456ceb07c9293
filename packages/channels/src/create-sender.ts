import axios from 'axios';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { OutgoingRequest, SendFailure, SendResult } from './channel-adapter';

export interface SenderOptions {
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS`: allows loopback and private addresses and `http:`. Development and tests only. */
  allowPrivateNetworks: boolean;
  /** Deadline for the whole request: DNS, connect, TLS, sending, and reading the answer. */
  timeoutMs: number;
  /**
   * Deadline for the answer's status line and headers, counted from the start of the request. Shorter than
   * `timeoutMs`, so a target that takes the connection and never answers (a tarpit) holds a send only this
   * long, while a slow body still has the whole `timeoutMs`. Default: `timeoutMs`.
   */
  firstByteTimeoutMs?: number;
  /** DNS resolver; every address it returns is checked before connecting. Default: the system resolver. */
  lookup?: LookupFunction;
  /** Bytes of the answer kept; the rest is never read. Default 64 KiB. */
  maxResponseBytes?: number;
  userAgent?: string;
}

export interface Sender {
  /** Never throws: a request without an HTTP answer comes back as a {@link SendFailure}. */
  send(request: OutgoingRequest): Promise<SendResult>;
  /** Closes pooled connections. */
  close(): void;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const IDLE_SOCKET_MS = 4_000;

// Cloud metadata endpoints (IPv4 as used by AWS, GCP and Azure; AWS's IPv6 one), refused even when private
// networks are allowed: a developer's laptop on a cloud VM must not hand out its credentials either.
const METADATA_ADDRESSES = ['169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:169.254.169.254', 'fd00:ec2::254'];

function refused(reason: string): SendFailure {
  return { failure: 'refused', reason };
}

// request-filtering-agent reports a refused address as "DNS lookup <ip>(family:…) is not allowed. Because…".
const FILTERED = /DNS lookup (\S+?)\(family:[^)]*\) is not allowed\. Because,? (.*)$/s;

/** Maps any error to a reason built from codes only: axios errors carry the URL, which may hold a token. */
function classify(error: unknown, timedOut: 'first-byte' | 'total' | false, timeouts: { firstByteMs: number; totalMs: number }): SendFailure {
  if (timedOut === 'first-byte') return { failure: 'timeout', reason: `no answer within ${timeouts.firstByteMs} ms` };
  const timeoutMs = timeouts.totalMs;
  if (timedOut) return { failure: 'timeout', reason: `no complete answer within ${timeoutMs} ms` };
  const message = error instanceof Error ? error.message : '';
  const filtered = FILTERED.exec(message);
  if (filtered) {
    // The address the name resolved to stays out: it would map the internal network for whoever asked.
    return refused('the destination is not allowed; alerts go only to public addresses');
  }
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  switch (code) {
    case 'ECONNABORTED':
    case 'ETIMEDOUT':
      return { failure: 'timeout', reason: `no complete answer within ${timeoutMs} ms` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { failure: 'network', reason: 'the destination host name does not resolve' };
    case 'ECONNREFUSED':
      return { failure: 'network', reason: 'the destination refused the connection' };
    case 'ECONNRESET':
    case 'EPIPE':
      return { failure: 'network', reason: 'the connection was reset' };
    default:
      return { failure: 'network', reason: `the request failed${code ? ` (${code})` : ''}` };
  }
}

function plainHeaders(headers: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || typeof value === 'number') out[name.toLowerCase()] = String(value);
    else if (Array.isArray(value)) out[name.toLowerCase()] = value.join(', ');
  }
  return out;
}

async function readCapped(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    chunks.push(buffer.subarray(0, maxBytes - size));
    size += Math.min(buffer.length, maxBytes - size);
    // Leaving the loop destroys the stream: an oversized answer is never read to its end.
    if (size >= maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The two deadlines of one request: the answer's headers within `firstByteMs`, all of it within `totalMs`.
 * `onPassed` runs when either passes; `passed()` says which.
 */
function startDeadlines(timeouts: { firstByteMs: number; totalMs: number }, onPassed: () => void) {
  let passed: 'first-byte' | 'total' | false = false;
  const total = setTimeout(() => {
    passed = 'total';
    onPassed();
  }, timeouts.totalMs);
  const firstByte =
    timeouts.firstByteMs < timeouts.totalMs
      ? setTimeout(() => {
          passed = 'first-byte';
          onPassed();
        }, timeouts.firstByteMs)
      : undefined;
  return {
    passed: () => passed,
    /** The headers arrived: only the whole deadline is left. */
    answered: () => clearTimeout(firstByte),
    clear() {
      clearTimeout(total);
      clearTimeout(firstByte);
    },
  };
}

/**
 * An HTTP client for alert delivery. Every connection goes through request-filtering-agent, which checks
 * the address actually dialled (IP literals, and every DNS answer, so DNS rebinding is covered) and refuses
 * anything but public unicast: loopback, RFC 1918, link-local, CGNAT, multicast, unspecified, IPv6 ULA,
 * IPv4-mapped IPv6 and other reserved ranges. Redirects are never followed, proxies from the environment
 * are ignored, and `http:` is refused unless private networks are allowed.
 */
export function createSender(options: SenderOptions): Sender {
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const timeouts = { firstByteMs: Math.min(options.firstByteTimeoutMs ?? options.timeoutMs, options.timeoutMs), totalMs: options.timeoutMs };
  const agentOptions = {
    // Connections are kept and reused per host: alerts to one webhook come in runs, and a new TCP (and TLS)
    // handshake per alert would cost more than the alert. The address filter runs when a connection is made,
    // so a reused socket is one whose address was already checked. Idle sockets are closed after 4 s, before
    // the 5 s most servers (Node's default) give them, so a reused socket is rarely one the server just closed.
    keepAlive: true,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo' as const,
    allowPrivateIPAddress: options.allowPrivateNetworks,
    allowMetaIPAddress: false,
    denyIPAddressList: METADATA_ADDRESSES,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
  const httpAgent = new RequestFilteringHttpAgent(agentOptions);
  const httpsAgent = new RequestFilteringHttpsAgent(agentOptions);
  const client = axios.create({
    adapter: 'http',
    httpAgent,
    httpsAgent,
    proxy: false,
    maxRedirects: 0,
    responseType: 'stream',
    decompress: true,
    timeout: options.timeoutMs,
    validateStatus: () => true,
    // The body is sent byte for byte as built (and, for json, as signed): no re-serialising or trimming.
    transformRequest: [(data: unknown) => data],
  });

  return {
    async send(request) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return refused('the destination is not a valid URL');
      }
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowPrivateNetworks)) {
        return refused(`${url.protocol} destinations are refused; use an https: address`);
      }

      const controller = new AbortController();
      let stream: Readable | undefined;
      const deadline = startDeadlines(timeouts, () => {
        controller.abort();
        stream?.destroy();
      });
      try {
        const response = await client.request<Readable>({
          url: request.url,
          method: request.method,
          headers: { 'user-agent': options.userAgent ?? 'Hashwatch-Alerts/1.0', ...request.headers },
          data: Buffer.from(request.body, 'utf8'),
          signal: controller.signal,
        });
        deadline.answered();
        stream = response.data;
        if (deadline.passed()) {
          stream.destroy();
          throw new Error('deadline passed');
        }
        const body = await readCapped(stream, maxBytes);
        if (deadline.passed()) throw new Error('deadline passed');
        return { status: response.status, headers: plainHeaders(response.headers), body };
      } catch (error) {
        return classify(error, deadline.passed(), timeouts);
      } finally {
        deadline.clear();
      }
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
