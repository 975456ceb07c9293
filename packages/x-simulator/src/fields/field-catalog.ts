/** Which spelling the simulator answers with: OpenAPI 2.166 (tweet names) or 2.167 (post names). */
export type Naming = 'v2.166' | 'v2.167';

// Values of tweet.fields (2.166) and post.fields (2.167), as the two OpenAPI files list them. 2.167's list
// omits author_id, in_reply_to_user_id, referenced_posts and edit_history_post_ids although its Post schema
// has them, so both names of every field are accepted under either parameter.
const POST_FIELDS_166 = ['article', 'attachments', 'author_id', 'card_uri', 'community_id', 'context_annotations', 'conversation_id', 'created_at', 'display_text_range', 'edit_controls', 'edit_history_tweet_ids', 'entities', 'geo', 'id', 'in_reply_to_user_id', 'lang', 'matched_media_notes', 'media_metadata', 'non_public_metrics', 'note_request_suggestions', 'note_tweet', 'organic_metrics', 'paid_partnership', 'possibly_sensitive', 'promoted_metrics', 'public_metrics', 'referenced_tweets', 'reply_settings', 'scopes', 'source', 'suggested_source_links', 'suggested_source_links_with_counts', 'text', 'withheld'];
const POST_FIELDS_167 = ['article', 'article_title', 'attachments', 'card_uri', 'community_id', 'context_annotations', 'conversation_id', 'created_at', 'display_text_range', 'edit_controls', 'entities', 'geo', 'id', 'lang', 'matched_media_notes', 'media_metadata', 'non_public_metrics', 'note_post', 'note_request_suggestions', 'organic_metrics', 'paid_partnership', 'possibly_sensitive', 'promoted_metrics', 'public_metrics', 'reply_settings', 'scopes', 'source', 'suggested_source_links', 'suggested_source_links_with_counts', 'text', 'withheld', 'referenced_posts', 'edit_history_post_ids'];
const POST_EXPANSIONS_166 = ['article.cover_media', 'article.media_entities', 'attachments.media_keys', 'attachments.media_source_tweet', 'attachments.poll_ids', 'author_id', 'edit_history_tweet_ids', 'entities.mentions.username', 'geo.place_id', 'in_reply_to_user_id', 'entities.note.mentions.username', 'referenced_tweets.id', 'referenced_tweets.id.attachments.media_keys', 'referenced_tweets.id.author_id'];
const POST_EXPANSIONS_167 = ['article.cover_media', 'article.media_entities', 'attachments.media_keys', 'attachments.media_source_tweet', 'attachments.poll_ids', 'author_id', 'edit_history_post_ids', 'entities.mentions.username', 'geo.place_id', 'in_reply_to_user_id', 'referenced_posts', 'username', 'referenced_posts.id', 'referenced_posts.id.author_id'];
const USER_FIELDS_166 = ['affiliation', 'confirmed_email', 'connection_status', 'created_at', 'description', 'entities', 'id', 'is_identity_verified', 'location', 'most_recent_tweet_id', 'name', 'parody', 'pinned_tweet_id', 'profile_banner_url', 'profile_image_url', 'protected', 'public_metrics', 'receives_your_dm', 'subscription', 'subscription_type', 'url', 'username', 'verified', 'verified_followers_count', 'verified_type', 'withheld'];
const USER_FIELDS_167 = ['confirmed_email', 'connection_status', 'created_at', 'description', 'entities', 'id', 'is_identity_verified', 'location', 'name', 'parody', 'profile_banner_url', 'profile_image_url', 'protected', 'public_metrics', 'receives_your_dm', 'subscribes_to_you', 'subscription', 'subscription_type', 'url', 'username', 'verified', 'verified_followers_count', 'verified_type', 'withheld'];
const USER_EXPANSIONS = ['affiliation.user_id', 'most_recent_tweet_id', 'pinned_tweet_id', 'affiliation', 'most_recent_post_id', 'pinned_post_id'];
// media.fields, poll.fields and place.fields: the same in both files.
const MEDIA_FIELDS = ['alt_text', 'duration_ms', 'height', 'media_key', 'non_public_metrics', 'organic_metrics', 'preview_image_url', 'promoted_metrics', 'public_metrics', 'type', 'url', 'variants', 'width'];
const POLL_FIELDS = ['duration_minutes', 'end_datetime', 'id', 'options', 'voting_status'];
const PLACE_FIELDS = ['contained_within', 'country', 'country_code', 'full_name', 'geo', 'id', 'name', 'place_type'];

const union = (...lists: string[][]): string[] => [...new Set(lists.flat())].sort();

export const POST_FIELD_NAMES = union(POST_FIELDS_166, POST_FIELDS_167);
export const POST_EXPANSION_NAMES = union(POST_EXPANSIONS_166, POST_EXPANSIONS_167);
export const USER_FIELD_NAMES = union(USER_FIELDS_166, USER_FIELDS_167);
export const USER_EXPANSION_NAMES = union(USER_EXPANSIONS);
export const MEDIA_FIELD_NAMES = union(MEDIA_FIELDS);
export const POLL_FIELD_NAMES = union(POLL_FIELDS);
export const PLACE_FIELD_NAMES = union(PLACE_FIELDS);

/** Post fields the simulator can fill, under one name whatever the spelling asked for. */
export type PostField =
  | 'attachments'
  | 'author_id'
  | 'conversation_id'
  | 'created_at'
  | 'edit_controls'
  | 'edit_history'
  | 'entities'
  | 'in_reply_to_user_id'
  | 'lang'
  | 'note'
  | 'possibly_sensitive'
  | 'public_metrics'
  | 'referenced'
  | 'reply_settings'
  | 'withheld';

export const POST_FIELD_ALIASES: Record<string, PostField> = {
  attachments: 'attachments',
  author_id: 'author_id',
  conversation_id: 'conversation_id',
  created_at: 'created_at',
  edit_controls: 'edit_controls',
  edit_history_tweet_ids: 'edit_history',
  edit_history_post_ids: 'edit_history',
  entities: 'entities',
  in_reply_to_user_id: 'in_reply_to_user_id',
  lang: 'lang',
  note_tweet: 'note',
  note_post: 'note',
  possibly_sensitive: 'possibly_sensitive',
  public_metrics: 'public_metrics',
  referenced_tweets: 'referenced',
  referenced_posts: 'referenced',
  reply_settings: 'reply_settings',
  withheld: 'withheld',
};

export type PostExpansion =
  | 'author'
  | 'reply_user'
  | 'mentions'
  | 'referenced'
  | 'referenced_author'
  | 'media'
  | 'referenced_media'
  | 'edit_history';

export const POST_EXPANSION_ALIASES: Record<string, PostExpansion> = {
  author_id: 'author',
  in_reply_to_user_id: 'reply_user',
  'entities.mentions.username': 'mentions',
  'referenced_tweets.id': 'referenced',
  referenced_posts: 'referenced',
  'referenced_posts.id': 'referenced',
  'referenced_tweets.id.author_id': 'referenced_author',
  'referenced_posts.id.author_id': 'referenced_author',
  'attachments.media_keys': 'media',
  'referenced_tweets.id.attachments.media_keys': 'referenced_media',
  edit_history_tweet_ids: 'edit_history',
  edit_history_post_ids: 'edit_history',
};

export type UserField = 'created_at' | 'description' | 'location' | 'protected' | 'public_metrics' | 'verified' | 'withheld';

export const USER_FIELD_ALIASES: Record<string, UserField> = {
  created_at: 'created_at',
  description: 'description',
  location: 'location',
  protected: 'protected',
  public_metrics: 'public_metrics',
  verified: 'verified',
  withheld: 'withheld',
};

/** Media fields the simulator fills; `media_key` and `type` are always there, as on X. */
export type MediaField = 'alt_text' | 'duration_ms' | 'height' | 'preview_image_url' | 'public_metrics' | 'url' | 'variants' | 'width';

export const MEDIA_FIELD_ALIASES: Record<string, MediaField> = {
  alt_text: 'alt_text',
  duration_ms: 'duration_ms',
  height: 'height',
  preview_image_url: 'preview_image_url',
  public_metrics: 'public_metrics',
  url: 'url',
  variants: 'variants',
  width: 'width',
};

/** Key names that differ between the two spellings. */
export interface NamingKeys {
  editHistory: string;
  notePost: string;
  /** A withheld post's `scope` value. */
  postScope: string;
  /** The `parameter` of the error for a referenced post that is gone. */
  referencedParameter: string;
  referenced: string;
  retweetCount: string;
  includedPosts: string;
  userPostCount: string;
  problemBase: string;
}

export const NAMING_KEYS: Record<Naming, NamingKeys> = {
  'v2.166': {
    editHistory: 'edit_history_tweet_ids',
    notePost: 'note_tweet',
    postScope: 'tweet',
    referencedParameter: 'referenced_tweets.id',
    referenced: 'referenced_tweets',
    retweetCount: 'retweet_count',
    includedPosts: 'tweets',
    userPostCount: 'tweet_count',
    problemBase: 'https://api.twitter.com/2/problems/',
  },
  'v2.167': {
    editHistory: 'edit_history_post_ids',
    notePost: 'note_post',
    postScope: 'post',
    referencedParameter: 'referenced_posts.id',
    referenced: 'referenced_posts',
    retweetCount: 'repost_count',
    includedPosts: 'posts',
    userPostCount: 'post_count',
    problemBase: 'https://api.x.com/2/problems/',
  },
};
