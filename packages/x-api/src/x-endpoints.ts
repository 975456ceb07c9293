/**
 * The X API v2 endpoints the client calls. Each name is one upstream rate-limit bucket and one key of the
 * shared budget in Redis (`<prefix>:xrl:<name>`).
 */
export const X_ENDPOINT_NAMES = [
  'search_recent',
  'posts_lookup',
  'users_by_usernames',
  'user_by_username',
  'user_posts',
  'liking_users',
  'retweeted_by',
  // The filtered stream: connect (50 per 15 min), rules lookup (450) and rules changes (100), app-only.
  'stream_connect',
  'stream_rules_read',
  'stream_rules_write',
  // Batch compliance: creating a job and reading its status (150 per 15 min each), app-only. The upload and the
  // download go to the signed storage addresses the job names, outside X's rate limits.
  'compliance_jobs_create',
  'compliance_jobs_read',
] as const;

export type XEndpointName = (typeof X_ENDPOINT_NAMES)[number];

// What the service needs from a post and nothing more: every extra field is bytes, and X bills per resource.
// note_tweet carries a long post's whole text; attachments, the urls entities and media.fields what a card
// shows; referenced_tweets.id brings a retweet's whole original and the quoted post in the same answer, and
// referenced_tweets.id.attachments.media_keys the original's media.
export const POST_FIELDS = 'created_at,lang,public_metrics,referenced_tweets,conversation_id,entities,author_id,in_reply_to_user_id,note_tweet,attachments,edit_history_tweet_ids,withheld';
export const POST_EXPANSIONS = 'author_id,referenced_tweets.id,referenced_tweets.id.author_id,referenced_tweets.id.attachments.media_keys,attachments.media_keys';
// verified, verified_type and public_metrics (followers) serve a track's verified_only and min_followers filters.
export const USER_FIELDS = 'username,name,verified,verified_type,public_metrics';
export const MEDIA_FIELDS = 'type,url,preview_image_url,width,height,alt_text';
/**
 * The counts-only posts lookup (engagement refreshes): `public_metrics` and no expansions. X still sends its
 * default fields (`id`, `text`, `edit_history_tweet_ids`), but no author, entities or references: half the
 * bytes of a full lookup, and a fraction of the parsing.
 */
export const COUNT_FIELDS = 'public_metrics';
