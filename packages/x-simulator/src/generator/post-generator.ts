import type { Logger } from '@hashwatch/logger';
import { GENERATOR_DEFAULTS, mergeGeneratorOptions, type GeneratorOptions, type GeneratorOverrides } from './generator-options';
import { seededRandom, ZipfSampler } from './zipf';
import type { SimPost, SimStore } from '../store/sim-store';

const TICK_MS = 100;
const RECENT_POSTS = 500;
// Recent search covers 7 days; older posts only cost memory.
const RETENTION_MS = 7 * 24 * 3600 * 1000 + 3600 * 1000;

export interface GeneratorStatus {
  running: boolean;
  generated: number;
  options: GeneratorOptions;
}

/**
 * Posts a steady stream into the store for the demo and benchmarks: Zipf-distributed authors and tags,
 * some replies, retweets and likes on recent posts. Runs on a timer; `produce` makes a batch directly.
 */
export class PostGenerator {
  private timer: NodeJS.Timeout | undefined;
  private options: GeneratorOptions;
  private random: () => number = Math.random;
  private tags!: ZipfSampler;
  private cashtags!: ZipfSampler;
  private authors!: ZipfSampler;
  private recency!: ZipfSampler;
  private owed = 0;
  private lastTick = 0;
  private generated = 0;

  constructor(
    private readonly store: SimStore,
    private readonly clock: { now: () => number; indexLagMs: number },
    defaults: GeneratorOverrides,
    private readonly logger?: Logger,
  ) {
    this.options = mergeGeneratorOptions(GENERATOR_DEFAULTS, defaults);
    this.configure(this.options);
  }

  start(overrides: GeneratorOverrides = {}): GeneratorStatus {
    this.configure(mergeGeneratorOptions(this.options, overrides));
    if (!this.timer) {
      this.lastTick = this.clock.now();
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
      this.logger?.info('generator started', { postsPerSecond: this.options.postsPerSecond });
    }
    return this.status();
  }

  stop(): GeneratorStatus {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.logger?.info('generator stopped', { generated: this.generated });
    }
    return this.status();
  }

  status(): GeneratorStatus {
    return { running: this.timer !== undefined, generated: this.generated, options: this.options };
  }

  /** Creates `count` posts now, with their share of likes. */
  produce(count: number): SimPost[] {
    const made: SimPost[] = [];
    for (let i = 0; i < count; i += 1) {
      made.push(this.onePost());
      this.addLikes();
    }
    this.generated += made.length;
    return made;
  }

  private configure(options: GeneratorOptions): void {
    // A restart with the same seed continues the stream instead of repeating it.
    if (options.seed !== this.options?.seed || this.generated === 0) this.random = seededRandom(options.seed);
    this.options = options;
    this.tags = new ZipfSampler(options.tags.length, options.zipfExponent, this.random);
    this.cashtags = new ZipfSampler(Math.max(1, options.cashtags.length), options.zipfExponent, this.random);
    this.authors = new ZipfSampler(options.authorCount, options.zipfExponent, this.random);
    this.recency = new ZipfSampler(RECENT_POSTS, 1, this.random);
  }

  private tick(): void {
    const now = this.clock.now();
    this.owed += ((now - this.lastTick) / 1000) * this.options.postsPerSecond;
    this.lastTick = now;
    const due = Math.floor(this.owed);
    this.owed -= due;
    if (due > 0) this.produce(due);
    this.store.pruneBefore(now - RETENTION_MS);
  }

  private author(): string {
    const rank = this.authors.sample() + 1;
    const username = `user${String(rank).padStart(4, '0')}`;
    const existing = this.store.userByUsername(username);
    if (existing) return existing.id;
    return this.store.createUser({ username, name: `Generated User ${rank}`, followersCount: Math.round(100_000 / rank) }).id;
  }

  private recentPost(): SimPost | undefined {
    const recent = this.store.latest(RECENT_POSTS);
    if (recent.length === 0) return undefined;
    return recent[this.recency.sample() % recent.length];
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private lang(): string {
    const total = this.options.langs.reduce((sum, lang) => sum + lang.weight, 0);
    let target = this.random() * total;
    for (const lang of this.options.langs) {
      target -= lang.weight;
      if (target <= 0) return lang.code;
    }
    return this.options.langs[0]!.code;
  }

  private text(): string {
    const { words, tags, cashtags } = this.options;
    const parts = Array.from({ length: 6 + Math.floor(this.random() * 9) }, () => this.pick(words));
    const tagCount = 1 + Math.floor(this.random() * 3);
    for (let i = 0; i < tagCount; i += 1) parts.splice(Math.floor(this.random() * (parts.length + 1)), 0, `#${tags[this.tags.sample()]}`);
    if (cashtags.length > 0 && this.random() < this.options.cashtagRate) parts.push(`$${cashtags[this.cashtags.sample()]}`);
    return parts.join(' ');
  }

  private onePost(): SimPost {
    const now = this.clock.now();
    const base = { authorId: this.author(), createdAt: now, visibleAt: now + this.clock.indexLagMs };
    const roll = this.random();
    const target = roll < this.options.retweetRate + this.options.replyRate ? this.recentPost() : undefined;
    if (target && roll < this.options.retweetRate && target.authorId !== base.authorId && !target.retweeterIds.includes(base.authorId) && !target.references.some((r) => r.type === 'retweeted')) {
      return this.store.createPost({ ...base, retweetOf: target.id });
    }
    if (target) return this.store.createPost({ ...base, replyTo: target.id, text: this.text(), lang: target.lang });
    return this.store.createPost({ ...base, text: this.text(), lang: this.lang() });
  }

  private addLikes(): void {
    let likes = Math.floor(this.options.likesPerPost);
    if (this.random() < this.options.likesPerPost - likes) likes += 1;
    for (let i = 0; i < likes; i += 1) {
      const post = this.recentPost();
      if (post) this.store.addLikes(post.id, [this.author()], 0);
    }
  }
}
