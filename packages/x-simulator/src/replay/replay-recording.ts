import { unescapeText } from '../fields/html-escape';
import type { SimulatorSettings } from '../simulator-options';
import type { PostLink } from '../store/entities';
import type { MediaType, PostMedia, PostMetrics, PostReference, RecordedContent, SimStore, SimUser } from '../store/sim-store';
import { recordedAnswerSchema, type RecordedAnswer, type RecordedMedia, type RecordedPost, type RecordedUser } from './recorded-answer.schema';

/** What a replay writes to and reads from the simulator (its SimulatorState). */
export interface ReplayTarget {
  readonly store: SimStore;
  readonly settings: Pick<SimulatorSettings, 'indexLagMs'>;
  readonly now: () => number;
}

/** Where each recorded id went: old id → new id. */
export interface ReplayResult {
  /**
   * Every post id the recording names (its posts, the versions its edit histories list, the posts it
   * references and the conversations it belongs to), each with its fresh id here. An id whose post the
   * recording does not hold gets a fresh id no post has, so it stays missing.
   */
  posts: Record<string, string>;
  /** Every user id the recording names; a handle already known here keeps its id, a new one its recorded id when free. */
  users: Record<string, string>;
}

export interface ReplayOptions {
  /** Handle that authors posts recorded without `author_id` (answers with default fields). */
  defaultAuthor?: string;
}

export const DEFAULT_REPLAY_AUTHOR = 'recorded';

const RETWEET_PREFIX = /^RT @([A-Za-z0-9_]{1,15}): /;
// An original made from what a retweet shows was not in the recorded page: it is dated out of recent search's
// 7 days, so a replayed search page finds what the recorded one did.
const SHOWN_ORIGINAL_AGE_MS = 8 * 24 * 3600 * 1000;
const MEDIA_TYPE_OF_CODE: Record<string, MediaType> = { '3': 'photo', '7': 'video', '13': 'video', '16': 'animated_gif' };
const LINK_KEYS = new Set(['start', 'end', 'url', 'expanded_url', 'display_url', 'media_key']);
const MEDIA_KEYS = new Set(['media_key', 'type', 'url', 'preview_image_url', 'width', 'height', 'alt_text']);

/**
 * Publishes a recorded X answer "now": its posts with fresh ids and times (references, edit histories and
 * conversation ids remapped alike), the users of `includes.users` and of its mentions (created when the
 * handle is unknown), everything else as recorded: text (unescaped once, so the serializer escapes it back
 * to the recorded bytes), links, media, attachments, annotations, counts, withholding, edit controls. A
 * retweet is replayed as a retweet of its original: the one in `includes` when recorded, else one made from
 * what the retweet shows of it. Versions an edit history names but the recording lacks are made from the
 * nearest later version. Search, lookups, timelines and the stream then serve them in X's shape.
 */
export function replayRecording(state: ReplayTarget, recording: unknown, options: ReplayOptions = {}): ReplayResult {
  const answer = recordedAnswerSchema.parse(recording);
  return new Replay(state, answer, options.defaultAuthor ?? DEFAULT_REPLAY_AUTHOR).run();
}

const references = (post: RecordedPost): PostReference[] => post.referenced_tweets ?? post.referenced_posts ?? [];
const history = (post: RecordedPost): string[] => post.edit_history_tweet_ids ?? post.edit_history_post_ids ?? [post.id];
const noteOf = (post: RecordedPost) => post.note_tweet ?? post.note_post;
const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

class Replay {
  private readonly posts = new Map<string, RecordedPost>();
  private readonly media = new Map<string, RecordedMedia>();
  private readonly postIds = new Map<string, string>();
  private readonly userIds = new Map<string, string>();
  /** Originals made from what a retweet shows, one per author and text. */
  private readonly shownOriginals = new Map<string, string>();
  private readonly at: number;

  constructor(
    private readonly state: ReplayTarget,
    private readonly answer: RecordedAnswer,
    private readonly defaultAuthor: string,
  ) {
    this.at = state.now();
  }

  run(): ReplayResult {
    const data = this.answer.data === undefined ? [] : Array.isArray(this.answer.data) ? this.answer.data : [this.answer.data];
    const includes = this.answer.includes;
    for (const item of [...data, ...(includes?.tweets ?? []), ...(includes?.posts ?? [])]) {
      if ('text' in item && !this.posts.has(item.id)) this.posts.set(item.id as string, item as RecordedPost);
    }
    for (const media of includes?.media ?? []) this.media.set(media.media_key, media);
    for (const user of [...data, ...(includes?.users ?? [])]) if (!('text' in user)) this.user(user as RecordedUser);
    for (const post of this.posts.values()) {
      for (const mention of [...(post.entities?.mentions ?? []), ...(noteOf(post)?.entities?.mentions ?? [])]) {
        if (mention.id !== undefined) this.user({ id: mention.id, username: mention.username });
      }
    }

    const versions = this.missingVersions();
    const created = [...this.posts.keys(), ...versions.keys()].sort(byId);
    const made = new Set(created);
    // Ids the recording names without holding the post: fresh ids nothing has, taken before any post is made.
    const named = new Set<string>();
    for (const post of [...this.posts.values(), ...versions.values()]) {
      for (const ref of references(post)) named.add(ref.id);
      if (post.conversation_id !== undefined) named.add(post.conversation_id);
    }
    for (const id of [...named].filter((candidate) => !made.has(candidate)).sort(byId)) this.postIds.set(id, this.state.store.reserveId(this.at));

    for (const id of created) this.publish(id, this.posts.get(id) ?? versions.get(id)!);
    this.restoreCounts();
    return { posts: Object.fromEntries(this.postIds), users: Object.fromEntries(this.userIds) };
  }

  /** Versions an edit history lists that the recording does not hold: each a copy of the nearest later one. */
  private missingVersions(): Map<string, RecordedPost> {
    const missing = new Map<string, RecordedPost>();
    for (const post of this.posts.values()) {
      const ids = history(post);
      ids.forEach((id, index) => {
        if (this.posts.has(id) || missing.has(id)) return;
        const later = ids.slice(index + 1).find((candidate) => this.posts.has(candidate)) ?? post.id;
        missing.set(id, { ...this.posts.get(later)!, id, public_metrics: undefined });
      });
    }
    return missing;
  }

  private publish(oldId: string, post: RecordedPost): void {
    const store = this.state.store;
    const authorId = post.author_id === undefined ? store.ensureUser(this.defaultAuthor).id : this.userId(post.author_id);
    const base = { authorId, createdAt: this.at, visibleAt: this.at + this.state.settings.indexLagMs, lang: post.lang };
    const refs = references(post);
    const retweeted = refs.find((ref) => ref.type === 'retweeted');
    const shown = RETWEET_PREFIX.exec(post.text);
    if (retweeted || shown) {
      const original = retweeted && this.posts.has(retweeted.id) ? this.postIds.get(retweeted.id) : undefined;
      const retweet = store.createPost({ ...base, retweetOf: original ?? this.shownOriginal(post, shown) });
      this.postIds.set(oldId, retweet.id);
      return;
    }
    const ids = history(post);
    const previous = ids[ids.indexOf(oldId) - 1];
    const made = (ref: PostReference | undefined) => (ref && this.posts.has(ref.id) ? this.postIds.get(ref.id) : undefined);
    const replyTo = made(refs.find((ref) => ref.type === 'replied_to'));
    const quoteOf = made(refs.find((ref) => ref.type === 'quoted'));
    const dangling = refs.filter((ref) => !this.posts.has(ref.id)).map((ref) => ({ type: ref.type, id: this.postIds.get(ref.id)! }));
    const controls = post.edit_controls;
    const withheld = post.withheld;
    const created = store.createPost({
      ...base,
      replyTo,
      quoteOf,
      editOf: previous === undefined ? undefined : this.postIds.get(previous),
      withheld: withheld?.country_codes
        ? { copyright: withheld.copyright ?? false, countryCodes: withheld.country_codes, scope: withheld.scope === 'user' ? 'user' : withheld.scope ? 'tweet' : undefined }
        : null,
      recorded: {
        ...this.content(post, oldId),
        danglingReferences: dangling,
        // A conversation started by this very post gets its new id from the store.
        conversationId: post.conversation_id !== undefined && post.conversation_id !== oldId ? this.postIds.get(post.conversation_id) : undefined,
        inReplyToUserId: post.in_reply_to_user_id === undefined ? undefined : this.userId(post.in_reply_to_user_id),
        editControls: controls && {
          eligible: controls.is_edit_eligible,
          editsRemaining: controls.edits_remaining === undefined ? undefined : Number(controls.edits_remaining),
        },
      },
    });
    this.postIds.set(oldId, created.id);
  }

  /** The original a retweet stands for when the recording lacks it: what the retweet shows of it, by the handle it names. */
  private shownOriginal(retweet: RecordedPost, shown: RegExpExecArray | null): string {
    const handle = shown?.[1] ?? this.defaultAuthor;
    const text = shown ? retweet.text.slice(shown[0].length) : retweet.text;
    const key = `${handle.toLowerCase()}\n${text}`;
    const known = this.shownOriginals.get(key);
    if (known) return known;
    const content = this.content({ ...retweet, text }, undefined);
    const createdAt = this.at - SHOWN_ORIGINAL_AGE_MS;
    const original = this.state.store.createPost({
      authorId: this.state.store.ensureUser(handle).id,
      createdAt,
      visibleAt: createdAt,
      lang: retweet.lang,
      recorded: { ...content, links: content.links.filter((link) => text.includes(link.url)), media: [], annotations: undefined },
    });
    this.shownOriginals.set(key, original.id);
    return original.id;
  }

  private content(post: RecordedPost, oldId: string | undefined): RecordedContent {
    const note = noteOf(post);
    const links = new Map<string, PostLink>();
    for (const url of [...(post.entities?.urls ?? []), ...(note?.entities?.urls ?? [])]) {
      if (links.has(url.url)) continue;
      const extra = Object.fromEntries(Object.entries(url).filter(([key]) => !LINK_KEYS.has(key)));
      links.set(url.url, {
        url: url.url,
        expandedUrl: this.repointStatus(url.expanded_url ?? url.url),
        displayUrl: url.display_url ?? url.url,
        mediaKey: url.media_key,
        extra: Object.keys(extra).length > 0 ? extra : undefined,
      });
    }
    return {
      text: unescapeText(post.text),
      noteText: note === undefined ? undefined : unescapeText(note.text),
      recordedId: oldId,
      links: [...links.values()],
      media: (post.attachments?.media_keys ?? []).map((key) => this.postMedia(key)),
      annotations: post.entities?.annotations,
    };
  }

  private postMedia(key: string): PostMedia {
    const recorded = this.media.get(key);
    if (!recorded) return { mediaKey: key, type: MEDIA_TYPE_OF_CODE[key.split('_')[0]!] ?? 'photo' };
    const extra = Object.fromEntries(Object.entries(recorded).filter(([name]) => !MEDIA_KEYS.has(name)));
    return {
      mediaKey: key,
      type: recorded.type,
      url: recorded.url,
      previewImageUrl: recorded.preview_image_url,
      width: recorded.width,
      height: recorded.height,
      altText: recorded.alt_text,
      extra: Object.keys(extra).length > 0 ? extra : undefined,
    };
  }

  /** Links to a recorded post's pages point at its new id once it has one. */
  private repointStatus(url: string): string {
    return url.replace(/\/status\/([0-9]{1,19})(?![0-9])/g, (whole, id: string) => {
      const mapped = this.postIds.get(id);
      return mapped ? `/status/${mapped}` : whole;
    });
  }

  /** Puts back the counts the recording shows, over what making the replies, quotes and retweets added. */
  private restoreCounts(): void {
    const shownOriginalCounts = new Map<string, number>();
    for (const [oldId, post] of this.posts) {
      const counts = post.public_metrics;
      if (!counts) continue;
      const newId = this.postIds.get(oldId)!;
      const retweets = counts.retweet_count ?? counts.repost_count;
      const retweeted = this.state.store.post(newId)?.references.find((ref) => ref.type === 'retweeted');
      if (retweeted) {
        // A retweet's counts are its original's retweets; an original the recording lacks takes them from it.
        if (retweets !== undefined && ![...this.posts.keys()].some((id) => this.postIds.get(id) === retweeted.id)) {
          shownOriginalCounts.set(retweeted.id, Math.max(retweets, shownOriginalCounts.get(retweeted.id) ?? 0));
        }
        continue;
      }
      const metrics: Partial<PostMetrics> = {
        retweets,
        replies: counts.reply_count,
        likes: counts.like_count,
        quotes: counts.quote_count,
        bookmarks: counts.bookmark_count,
        impressions: counts.impression_count,
      };
      this.state.store.setMetrics(newId, metrics);
    }
    for (const [id, retweets] of shownOriginalCounts) this.state.store.setMetrics(id, { retweets });
  }

  private user(recorded: RecordedUser): SimUser {
    const store = this.state.store;
    const known = this.userIds.get(recorded.id);
    if (known) return store.userById(known)!;
    const user =
      store.userByUsername(recorded.username) ??
      store.createUser({
        username: recorded.username,
        id: store.userById(recorded.id) ? undefined : recorded.id,
        name: recorded.name,
        createdAt: recorded.created_at === undefined ? undefined : Date.parse(recorded.created_at),
        description: recorded.description,
        location: recorded.location,
        verified: recorded.verified,
        protected: recorded.protected,
        followersCount: recorded.public_metrics?.followers_count,
        withheld: recorded.withheld?.country_codes ? { countryCodes: recorded.withheld.country_codes, scope: recorded.withheld.scope === 'user' ? 'user' : undefined } : null,
      });
    this.userIds.set(recorded.id, user.id);
    return user;
  }

  /** The user a recorded id names: one of the recording's, one known here by that id, or a new one named after it. */
  private userId(oldId: string): string {
    const mapped = this.userIds.get(oldId);
    if (mapped) return mapped;
    const store = this.state.store;
    let username = `u${oldId.slice(-14)}`;
    for (let n = 1; store.userByUsername(username); n += 1) username = `u${n}_${oldId.slice(-10)}`;
    const user = store.userById(oldId) ?? store.createUser({ username, id: oldId });
    this.userIds.set(oldId, user.id);
    return user.id;
  }
}
