import type { RedisClient } from '@hashwatch/queues';

// Keeps `prev,newest`: the newest reply id seen by the last sample and by the one before it.
const ADVANCE = `
local current = redis.call('GET', KEYS[1])
local newest = ''
if current then newest = string.match(current, ',(.*)$') or '' end
local candidate = ARGV[1]
local newer = #candidate > #newest or (#candidate == #newest and candidate > newest)
if newer then redis.call('SET', KEYS[1], newest .. ',' .. candidate, 'PX', ARGV[2]) end
return 1`;

/**
 * Where each post's reply sampling resumes. A sample asks only for replies newer than the newest one seen
 * two samples ago (one sample ago right after the first): the overlap gives a reply that reached X's search index late (index lag) one more
 * chance, costs nothing extra on X's bill within a UTC day (same-day reads of a post are billed once), and
 * the replies already seen are recognised and skipped. Kept in Redis because it is only an optimisation:
 * when lost, the next sample reads the newest 100 replies again, and nothing is alerted twice.
 */
export class ReplyCursors {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly ttlMs = 3 * 24 * 3600 * 1000,
  ) {}

  private key(postId: string): string {
    return `${this.keyPrefix}:engagement:reply-cursor:${postId}`;
  }

  /** The since_id for the next sample of the post, or null to read from the newest 100. */
  async sinceId(postId: string): Promise<string | null> {
    const value = await this.redis.get(this.key(postId));
    if (!value) return null;
    const [previous, newest] = value.split(',');
    return previous || newest || null;
  }

  /** Records the newest reply id a committed sample saw. Never moves backwards. */
  async advance(postId: string, newestId: string): Promise<void> {
    await this.redis.eval(ADVANCE, 1, this.key(postId), newestId, String(this.ttlMs));
  }
}
