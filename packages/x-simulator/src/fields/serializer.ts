import { NAMING_KEYS, type MediaField, type Naming, type NamingKeys, type PostField, type UserField } from './field-catalog';
import type { FieldSelection } from './field-selection';
import { escapeText } from './html-escape';
import type { PostEntities } from '../store/entities';
import type { PostMedia, SimPost, SimStore, SimUser } from '../store/sim-store';

type Json = Record<string, unknown>;

/** A data array plus its `includes` and partial `errors`, and how many billable resources it carries. */
export interface SerializedPosts {
  data: Json[];
  includes: Json | undefined;
  /** Referenced posts an expansion asked for that are gone, as X reports them beside `data`. */
  errors: Json[];
  postsServed: number;
  usersServed: number;
}

// X reports created_at with second precision and a ".000Z" suffix.
function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString();
}

/** Turns stored posts and users into X's JSON, showing only the fields asked for, in the configured spelling. */
export class Serializer {
  readonly keys: NamingKeys;

  constructor(
    private readonly store: SimStore,
    naming: Naming,
  ) {
    this.keys = NAMING_KEYS[naming];
  }

  post(post: SimPost, fields: ReadonlySet<PostField>): Json {
    const visible = post.shown ?? { text: post.text, entities: post.entities };
    const shown = escapeText(visible.text, visible.entities);
    // id, text and the edit history are X's default fields: always present.
    const out: Json = { id: post.id, text: shown.text, [this.keys.editHistory]: [...post.edits.ids] };
    if (fields.has('author_id')) out.author_id = post.authorId;
    if (fields.has('created_at')) out.created_at = timestamp(post.createdAt);
    if (fields.has('conversation_id')) out.conversation_id = post.conversationId;
    if (fields.has('lang')) out.lang = post.lang;
    if (fields.has('in_reply_to_user_id') && post.inReplyToUserId) out.in_reply_to_user_id = post.inReplyToUserId;
    if (fields.has('referenced') && post.references.length > 0) out[this.keys.referenced] = post.references.map((ref) => ({ ...ref }));
    if (fields.has('attachments') && post.media.length > 0) out.attachments = { media_keys: post.media.map((media) => media.mediaKey) };
    if (fields.has('possibly_sensitive')) out.possibly_sensitive = false;
    if (fields.has('reply_settings')) out.reply_settings = 'everyone';
    if (fields.has('edit_controls')) {
      out.edit_controls = {
        edits_remaining: post.edits.editsRemaining,
        is_edit_eligible: post.edits.eligible,
        editable_until: timestamp(post.edits.editableUntil),
      };
    }
    if (fields.has('public_metrics')) out.public_metrics = this.publicMetrics(post);
    if (fields.has('entities')) {
      const entities = this.entities(shown.entities, post.annotations);
      if (entities) out.entities = entities;
    }
    // note_tweet is sent only when asked for, and only for a long post: its whole text with its own entities.
    if (fields.has('note') && post.long) {
      const whole = escapeText(post.text, post.entities);
      const note: Json = { text: whole.text };
      const entities = this.entities(whole.entities, null);
      if (entities) note.entities = entities;
      out[this.keys.notePost] = note;
    }
    if (fields.has('withheld') && post.withheld) {
      const withheld: Json = { copyright: post.withheld.copyright, country_codes: [...post.withheld.countryCodes] };
      if (post.withheld.scope) withheld.scope = post.withheld.scope === 'tweet' ? this.keys.postScope : post.withheld.scope;
      out.withheld = withheld;
    }
    return out;
  }

  user(user: SimUser, fields: ReadonlySet<UserField>): Json {
    const out: Json = { id: user.id, name: user.name, username: user.username };
    if (fields.has('created_at')) out.created_at = timestamp(user.createdAt);
    if (fields.has('description')) out.description = user.description;
    if (fields.has('location') && user.location !== null) out.location = user.location;
    if (fields.has('protected')) out.protected = user.protected;
    if (fields.has('verified')) out.verified = user.verified;
    if (fields.has('public_metrics')) {
      out.public_metrics = {
        followers_count: user.followersCount,
        following_count: user.followingCount,
        [this.keys.userPostCount]: user.postCount,
        listed_count: user.listedCount,
      };
    }
    if (fields.has('withheld') && user.withheld) {
      const withheld: Json = { country_codes: [...user.withheld.countryCodes] };
      if (user.withheld.scope) withheld.scope = user.withheld.scope;
      out.withheld = withheld;
    }
    return out;
  }

  /** A media object: `media_key` and `type` always, the rest as asked (and as the media has them). */
  media(media: PostMedia, fields: ReadonlySet<MediaField>): Json {
    const out: Json = { media_key: media.mediaKey, type: media.type };
    if (fields.has('url') && media.url !== undefined) out.url = media.url;
    if (fields.has('preview_image_url') && media.previewImageUrl !== undefined) out.preview_image_url = media.previewImageUrl;
    if (fields.has('width') && media.width !== undefined) out.width = media.width;
    if (fields.has('height') && media.height !== undefined) out.height = media.height;
    if (fields.has('alt_text') && media.altText !== undefined) out.alt_text = media.altText;
    for (const field of ['duration_ms', 'variants', 'public_metrics'] as const) {
      if (fields.has(field) && media.extra?.[field] !== undefined) out[field] = structuredClone(media.extra[field]);
    }
    return out;
  }

  posts(posts: readonly SimPost[], selection: FieldSelection): SerializedPosts {
    const users = new Map<string, SimUser>();
    const included = new Map<string, SimPost>();
    const media = new Map<string, PostMedia>();
    const errors: Json[] = [];
    const addUser = (id: string | null | undefined) => {
      const user = id ? this.store.userById(id) : undefined;
      if (user && !users.has(user.id)) users.set(user.id, user);
    };
    const addMedia = (post: SimPost) => {
      for (const item of post.media) if (!media.has(item.mediaKey)) media.set(item.mediaKey, item);
    };
    const { expansions } = selection;
    for (const post of posts) {
      if (expansions.has('author')) addUser(post.authorId);
      if (expansions.has('reply_user')) addUser(post.inReplyToUserId);
      if (expansions.has('mentions')) for (const mention of this.shownEntities(post).mentions) addUser(this.store.userByUsername(mention.username)?.id);
      if (expansions.has('media')) addMedia(post);
      for (const reference of post.references) {
        const referenced = this.store.post(reference.id);
        if (!referenced) {
          if (expansions.has('referenced')) errors.push(this.missingReference(reference.id));
          continue;
        }
        if (expansions.has('referenced')) included.set(referenced.id, referenced);
        if (expansions.has('referenced_author')) addUser(referenced.authorId);
        if (expansions.has('referenced_media')) addMedia(referenced);
      }
      if (expansions.has('edit_history')) {
        for (const id of post.edits.ids) {
          const version = this.store.post(id);
          if (version) included.set(version.id, version);
        }
      }
    }
    const includes: Json = {};
    if (media.size > 0) includes.media = [...media.values()].map((item) => this.media(item, selection.media));
    if (users.size > 0) includes.users = [...users.values()].map((user) => this.user(user, selection.user));
    if (included.size > 0) includes[this.keys.includedPosts] = [...included.values()].map((post) => this.post(post, selection.post));
    return {
      data: posts.map((post) => this.post(post, selection.post)),
      includes: Object.keys(includes).length > 0 ? includes : undefined,
      errors,
      postsServed: posts.length + included.size,
      usersServed: users.size,
    };
  }

  /**
   * A retweet's public_metrics repeat the original's retweet count, every other count 0 (as the recorded
   * retweets show); engagement lands on the original, not on the retweet.
   */
  private publicMetrics(post: SimPost): Json {
    const retweeted = post.references.find((ref) => ref.type === 'retweeted');
    const m = retweeted
      ? { retweets: this.store.post(retweeted.id)?.metrics.retweets ?? 0, replies: 0, likes: 0, quotes: 0, bookmarks: 0, impressions: 0 }
      : post.metrics;
    return {
      [this.keys.retweetCount]: m.retweets,
      reply_count: m.replies,
      like_count: m.likes,
      quote_count: m.quotes,
      bookmark_count: m.bookmarks,
      impression_count: m.impressions,
    };
  }

  private shownEntities(post: SimPost): PostEntities {
    return (post.shown ?? post).entities;
  }

  private missingReference(id: string): Json {
    const parameter = this.keys.referencedParameter;
    return {
      value: id,
      detail: `Could not find tweet with ${parameter}: [${id}].`,
      title: 'Not Found Error',
      resource_type: 'tweet',
      parameter,
      resource_id: id,
      type: `${this.keys.problemBase}resource-not-found`,
    };
  }

  /** X's `entities` object: only the kinds present (its arrays have at least one item), annotations as recorded. */
  private entities(entities: PostEntities, annotations: unknown[] | null): Json | undefined {
    const out: Json = {};
    const { hashtags, cashtags, mentions, urls } = entities;
    if (urls.length > 0) {
      out.urls = urls.map(({ start, end, link }) => {
        const url: Json = { start, end, url: link.url, expanded_url: link.expandedUrl, display_url: link.displayUrl };
        if (link.mediaKey !== undefined) url.media_key = link.mediaKey;
        return { ...url, ...structuredClone(link.extra ?? {}) };
      });
    }
    if (hashtags.length > 0) out.hashtags = hashtags.map((entity) => ({ ...entity }));
    if (cashtags.length > 0) out.cashtags = cashtags.map((entity) => ({ ...entity }));
    if (mentions.length > 0) {
      // A mention of a known account names it as the account spells its handle (the recordings: `@twitter`
      // comes as username "Twitter"), with its id.
      out.mentions = mentions.map((mention) => {
        const user = this.store.userByUsername(mention.username);
        return user ? { start: mention.start, end: mention.end, username: user.username, id: user.id } : { ...mention };
      });
    }
    if (annotations && annotations.length > 0) out.annotations = structuredClone(annotations);
    return Object.keys(out).length > 0 ? out : undefined;
  }
}
