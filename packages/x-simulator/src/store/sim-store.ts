import { composePost, mediaKeyOf, searchableText } from './compose-post';
import { SnowflakeIds } from './snowflake';
import { foldText, searchTokens } from './text-tokens';
import {
  EDIT_WINDOW_MS,
  MAX_EDITS,
  isLatestVersion,
  type EditChain,
  type NewPost,
  type NewUser,
  type PostEdit,
  type PostMetrics,
  type PostReference,
  type PostWithheld,
  type ReferenceType,
  type SimPost,
  type SimUser,
  type UserWithheld,
} from './world-model';

export * from './world-model';

/** Why a store change was refused; the control API turns it into a 404 or 409. */
export class StoreError extends Error {
  constructor(
    readonly reason: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

function lowerBound(posts: readonly SimPost[], num: bigint): number {
  let lo = 0;
  let hi = posts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (posts[mid]!.num < num) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(posts: SimPost[], post: SimPost): void {
  const last = posts[posts.length - 1];
  if (!last || last.num < post.num) posts.push(post);
  else posts.splice(lowerBound(posts, post.num), 0, post);
}

function removeSorted(posts: SimPost[], post: SimPost): void {
  const at = lowerBound(posts, post.num);
  if (posts[at] === post) posts.splice(at, 1);
}

/** The simulated world: users and posts in memory, posts kept sorted by id. */
export class SimStore {
  private readonly usersById = new Map<string, SimUser>();
  private readonly usersByName = new Map<string, SimUser>();
  private readonly postsById = new Map<string, SimPost>();
  private readonly sorted: SimPost[] = [];
  private readonly byAuthor = new Map<string, SimPost[]>();
  private readonly ids = new SnowflakeIds((id) => this.postsById.has(id.toString()));
  private readonly mediaIds = new SnowflakeIds(() => false);
  private nextUserId = 1_000_000_001n;
  private readonly createdListeners = new Set<(post: SimPost) => void>();

  constructor(private readonly now: () => number) {}

  createUser(input: NewUser): SimUser {
    const key = input.username.toLowerCase();
    if (this.usersByName.has(key)) throw new StoreError('conflict', `user ${input.username} already exists`);
    if (input.id && this.usersById.has(input.id)) throw new StoreError('conflict', `user id ${input.id} already exists`);
    let id = input.id;
    while (!id || this.usersById.has(id)) {
      id = this.nextUserId.toString();
      this.nextUserId += 1n;
    }
    const user: SimUser = {
      id,
      username: input.username,
      name: input.name ?? input.username,
      createdAt: input.createdAt ?? this.now() - 365 * 24 * 3600 * 1000,
      description: input.description ?? '',
      location: input.location ?? null,
      verified: input.verified ?? false,
      protected: input.protected ?? false,
      followersCount: input.followersCount ?? 0,
      followingCount: 0,
      listedCount: 0,
      postCount: 0,
      withheld: input.withheld ?? null,
    };
    this.usersById.set(user.id, user);
    this.usersByName.set(key, user);
    return user;
  }

  /** The user with this handle, created on first mention: the control API and the generator post as anyone. */
  ensureUser(username: string): SimUser {
    return this.userByUsername(username) ?? this.createUser({ username });
  }

  userByUsername(username: string): SimUser | undefined {
    return this.usersByName.get(username.toLowerCase());
  }

  userById(id: string): SimUser | undefined {
    return this.usersById.get(id);
  }

  users(): SimUser[] {
    return [...this.usersById.values()];
  }

  setUserWithheld(userId: string, withheld: UserWithheld | null): SimUser {
    const user = this.usersById.get(userId);
    if (!user) throw new StoreError('not_found', `no user with id ${userId}`);
    user.withheld = withheld;
    return user;
  }

  post(id: string): SimPost | undefined {
    return this.postsById.get(id);
  }

  /** The newest version of the post with this id (itself when never edited). */
  latestVersion(id: string): SimPost | undefined {
    const post = this.postsById.get(id);
    if (!post) return undefined;
    return this.postsById.get(post.edits.ids[post.edits.ids.length - 1]!) ?? post;
  }

  postCount(): number {
    return this.sorted.length;
  }

  /** A fresh post id nothing has, for a reference to a post that does not exist (replayed answers). */
  reserveId(at: number): string {
    return this.ids.next(at).toString();
  }

  createPost(input: NewPost): SimPost {
    const author = this.usersById.get(input.authorId);
    if (!author) throw new StoreError('not_found', `no user with id ${input.authorId}`);
    const target = (id: string | undefined, what: string): SimPost | undefined => {
      if (id === undefined) return undefined;
      const post = this.postsById.get(id);
      if (!post) throw new StoreError('not_found', `no post ${id} to ${what}`);
      return post;
    };
    const parent = target(input.replyTo, 'reply to');
    // Retweeting a retweet retweets its original, as on X.
    const retweeted = target(input.retweetOf, 'retweet');
    const originalOfRetweeted = retweeted?.references.find((ref) => ref.type === 'retweeted');
    const original = (originalOfRetweeted && this.postsById.get(originalOfRetweeted.id)) ?? retweeted;
    const quoted = target(input.quoteOf, 'quote');
    const previous = target(input.editOf, 'edit');
    if (previous && !isLatestVersion(previous)) throw new StoreError('conflict', `post ${previous.id} has a newer version`);

    const num = this.ids.next(input.createdAt);
    const id = num.toString();
    const originalAuthor = original && this.usersById.get(original.authorId);
    const body = composePost(input, {
      id,
      authorUsername: author.username,
      original: original && { authorUsername: originalAuthor?.username ?? 'i', text: { text: original.text, entities: original.entities } },
      previousMedia: previous?.media ?? [],
      mediaKey: (type) => mediaKeyOf(type, this.mediaIds.next(input.createdAt)),
    });
    const references: PostReference[] = [];
    if (original) references.push({ type: 'retweeted', id: original.id });
    if (quoted) references.push({ type: 'quoted', id: quoted.id });
    if (parent) references.push({ type: 'replied_to', id: parent.id });
    references.push(...(input.recorded?.danglingReferences ?? []));
    const controls = input.recorded?.editControls;
    const edits: EditChain = previous?.edits ?? {
      ids: [],
      editableUntil: input.createdAt + EDIT_WINDOW_MS,
      editsRemaining: controls?.editsRemaining ?? MAX_EDITS,
      eligible: controls?.eligible ?? (!original && (!parent || parent.authorId === author.id)),
    };
    edits.ids.push(id);
    const post: SimPost = {
      id,
      num,
      authorId: author.id,
      text: body.whole.text,
      entities: body.whole.entities,
      shown: body.shown,
      long: body.long,
      lang: input.lang ?? original?.lang ?? 'en',
      createdAt: input.createdAt,
      visibleAt: Math.max(input.visibleAt, input.createdAt),
      conversationId: input.recorded?.conversationId ?? (parent ? parent.conversationId : id),
      inReplyToUserId: input.recorded?.inReplyToUserId ?? (parent ? parent.authorId : null),
      references,
      media: body.media,
      withheld: input.withheld ?? null,
      edits,
      annotations: input.recorded?.annotations ?? null,
      tokens: searchTokens(searchableText(body.whole)),
      hashtagKeys: new Set(body.whole.entities.hashtags.map((entity) => foldText(entity.tag))),
      cashtagKeys: new Set(body.whole.entities.cashtags.map((entity) => foldText(entity.tag))),
      // Each version of an edited post has its own metrics (X's docs): a new version starts from nothing.
      metrics: { retweets: 0, replies: 0, likes: 0, quotes: 0, bookmarks: 0, impressions: 0, ...definedCounts(input.metrics) },
      likerIds: [],
      retweeterIds: [],
    };
    this.postsById.set(id, post);
    insertSorted(this.sorted, post);
    let authored = this.byAuthor.get(author.id);
    if (!authored) this.byAuthor.set(author.id, (authored = []));
    insertSorted(authored, post);
    // An edit is the same post: the author's post count and the counts of what it replies to or quotes stay.
    if (!previous) this.addCounts(post, author, { parent, quoted, original });
    for (const listener of this.createdListeners) listener(post);
    return post;
  }

  /**
   * Edits a post as X does: the newest version of its chain gets a successor with a new, larger id, the same
   * references and (unless given) the same media and language. Refused (conflict) for a post that cannot be
   * edited, after 30 minutes or after 5 edits.
   */
  editPost(id: string, edit: PostEdit, at: number, visibleAt: number): SimPost {
    const head = this.latestVersion(id);
    if (!head) throw new StoreError('not_found', `no post ${id}`);
    const chain = head.edits;
    if (!chain.eligible) throw new StoreError('conflict', `post ${id} cannot be edited (retweets and replies to others cannot)`);
    if (chain.editsRemaining <= 0) throw new StoreError('conflict', `post ${id} has no edits remaining`);
    if (at >= chain.editableUntil) throw new StoreError('conflict', `post ${id} was editable until ${new Date(chain.editableUntil).toISOString()}`);
    const reference = (type: ReferenceType) => head.references.find((ref) => ref.type === type)?.id;
    const replyTo = reference('replied_to');
    const quoteOf = reference('quoted');
    const post = this.createPost({
      authorId: head.authorId,
      text: edit.text,
      links: edit.links,
      media: edit.media,
      lang: edit.lang ?? head.lang,
      createdAt: at,
      visibleAt,
      replyTo: replyTo && this.postsById.has(replyTo) ? replyTo : undefined,
      quoteOf: quoteOf && this.postsById.has(quoteOf) ? quoteOf : undefined,
      withheld: head.withheld,
      editOf: head.id,
    });
    chain.editsRemaining -= 1;
    return post;
  }

  /** Hears every post as it is created (the filtered stream delivers from here); returns the unsubscribe. */
  onPostCreated(listener: (post: SimPost) => void): () => void {
    this.createdListeners.add(listener);
    return () => this.createdListeners.delete(listener);
  }

  /** Named likes (each account once) plus anonymous ones that only move like_count, as X's real totals do. */
  addLikes(postId: string, userIds: readonly string[], anonymous: number): SimPost {
    const post = this.requirePost(postId);
    for (const userId of userIds) {
      if (post.likerIds.includes(userId)) continue;
      post.likerIds.push(userId);
      post.metrics.likes += 1;
    }
    post.metrics.likes += anonymous;
    post.metrics.impressions += (userIds.length + anonymous) * 20;
    return post;
  }

  /** Retweets by named accounts become retweet posts (each account once); anonymous ones move retweet_count. */
  addRetweets(postId: string, userIds: readonly string[], anonymous: number, at: number): SimPost {
    const post = this.requirePost(postId);
    for (const userId of userIds) {
      if (post.retweeterIds.includes(userId)) continue;
      this.createPost({ authorId: userId, retweetOf: post.id, createdAt: at, visibleAt: at });
    }
    post.metrics.retweets += anonymous;
    return post;
  }

  /** Sets a post's counts outright (a replayed post keeps the counts it was recorded with). */
  setMetrics(postId: string, metrics: Partial<PostMetrics>): SimPost {
    const post = this.requirePost(postId);
    Object.assign(post.metrics, definedCounts(metrics));
    return post;
  }

  setPostWithheld(postId: string, withheld: PostWithheld | null): SimPost {
    const post = this.requirePost(postId);
    post.withheld = withheld;
    return post;
  }

  /**
   * Deletes a post as X does: every version of an edited post goes with it, and so do the retweets of any of
   * them. The counts the deleted posts added (a retweet's, a reply's, a quote's) are taken back.
   */
  deletePost(id: string): void {
    const post = this.requirePost(id);
    for (const versionId of [...post.edits.ids]) {
      const version = this.postsById.get(versionId);
      if (!version) continue;
      for (const retweet of this.sorted.filter((candidate) => candidate.references.some((ref) => ref.type === 'retweeted' && ref.id === versionId))) {
        if (this.postsById.has(retweet.id)) this.deletePost(retweet.id);
      }
      if (versionId === post.edits.ids[0]) this.takeBackCounts(version);
      this.forget(version);
    }
  }

  /** Posts with since < id < until, newest first, from every author or one. */
  *newestFirst(bounds: { since?: bigint; until?: bigint; authorId?: string }): Generator<SimPost> {
    const posts = bounds.authorId ? (this.byAuthor.get(bounds.authorId) ?? []) : this.sorted;
    const high = bounds.until === undefined ? posts.length : lowerBound(posts, bounds.until);
    const low = bounds.since === undefined ? 0 : lowerBound(posts, bounds.since + 1n);
    for (let i = high - 1; i >= low; i -= 1) {
      const post = posts[i];
      // A post deleted while a caller iterates is skipped.
      if (post && this.postsById.has(post.id)) yield post;
    }
  }

  /** The newest `count` posts, newest first. */
  latest(count: number): SimPost[] {
    return this.sorted.slice(Math.max(0, this.sorted.length - count)).reverse();
  }

  /** Drops posts created before `before` (X's recent search covers 7 days; the generator would grow forever). */
  pruneBefore(before: number): number {
    let dropped = 0;
    // Forgetting old posts is memory housekeeping, not deletion: counts and retweets of them stay.
    while (this.sorted.length > 0 && this.sorted[0]!.createdAt < before) {
      this.forget(this.sorted[0]!);
      dropped += 1;
    }
    return dropped;
  }

  reset(): void {
    this.usersById.clear();
    this.usersByName.clear();
    this.postsById.clear();
    this.sorted.length = 0;
    this.byAuthor.clear();
    this.ids.reset();
    this.mediaIds.reset();
    this.nextUserId = 1_000_000_001n;
  }

  private requirePost(id: string): SimPost {
    const post = this.postsById.get(id);
    if (!post) throw new StoreError('not_found', `no post ${id}`);
    return post;
  }

  private forget(post: SimPost): void {
    this.postsById.delete(post.id);
    removeSorted(this.sorted, post);
    const authored = this.byAuthor.get(post.authorId);
    if (authored) removeSorted(authored, post);
    const author = this.usersById.get(post.authorId);
    if (author && post.edits.ids[0] === post.id) author.postCount -= 1;
  }

  private addCounts(post: SimPost, author: SimUser, targets: { parent?: SimPost; quoted?: SimPost; original?: SimPost }): void {
    author.postCount += 1;
    if (targets.parent) targets.parent.metrics.replies += 1;
    if (targets.quoted) targets.quoted.metrics.quotes += 1;
    if (targets.original) {
      targets.original.metrics.retweets += 1;
      if (!targets.original.retweeterIds.includes(post.authorId)) targets.original.retweeterIds.push(post.authorId);
    }
  }

  private takeBackCounts(post: SimPost): void {
    for (const reference of post.references) {
      const target = this.postsById.get(reference.id);
      if (!target) continue;
      if (reference.type === 'replied_to') target.metrics.replies = Math.max(0, target.metrics.replies - 1);
      if (reference.type === 'quoted') target.metrics.quotes = Math.max(0, target.metrics.quotes - 1);
      if (reference.type === 'retweeted') {
        target.metrics.retweets = Math.max(0, target.metrics.retweets - 1);
        target.retweeterIds = target.retweeterIds.filter((userId) => userId !== post.authorId);
      }
    }
  }
}

/** The counts that are given: a partial public_metrics leaves the others at what they were. */
function definedCounts(metrics: Partial<PostMetrics> | undefined): Partial<PostMetrics> {
  return Object.fromEntries(Object.entries(metrics ?? {}).filter(([, value]) => value !== undefined));
}
