import { z } from 'zod';

// The parts of a recorded X answer that a replay reads. Everything else a recording holds is allowed and left
// alone; both spellings (2.166 tweet names, 2.167 post names) are read.

const id = z.string().regex(/^[0-9]{1,19}$/, 'a numeric id');
const reference = z.looseObject({ type: z.enum(['retweeted', 'quoted', 'replied_to']), id });

const urlEntity = z.looseObject({
  start: z.number().int(),
  end: z.number().int(),
  url: z.string().min(1),
  expanded_url: z.string().optional(),
  display_url: z.string().optional(),
  media_key: z.string().optional(),
});

const mention = z.looseObject({ username: z.string().regex(/^[A-Za-z0-9_]{1,15}$/), id: id.optional() });

const entities = z.looseObject({
  urls: z.array(urlEntity).optional(),
  mentions: z.array(mention).optional(),
  annotations: z.array(z.unknown()).optional(),
});

const note = z.looseObject({ text: z.string(), entities: entities.optional() });

const counts = z.looseObject({
  retweet_count: z.number().int().min(0).optional(),
  repost_count: z.number().int().min(0).optional(),
  reply_count: z.number().int().min(0).optional(),
  like_count: z.number().int().min(0).optional(),
  quote_count: z.number().int().min(0).optional(),
  bookmark_count: z.number().int().min(0).optional(),
  impression_count: z.number().int().min(0).optional(),
});

export const recordedPost = z.looseObject({
  id,
  text: z.string(),
  author_id: id.optional(),
  lang: z.string().optional(),
  conversation_id: id.optional(),
  in_reply_to_user_id: id.optional(),
  referenced_tweets: z.array(reference).optional(),
  referenced_posts: z.array(reference).optional(),
  edit_history_tweet_ids: z.array(id).min(1).optional(),
  edit_history_post_ids: z.array(id).min(1).optional(),
  // edits_remaining was a string in 2022 and a number by 2023.
  edit_controls: z.looseObject({ edits_remaining: z.union([z.number(), z.string()]).optional(), is_edit_eligible: z.boolean().optional() }).optional(),
  entities: entities.optional(),
  attachments: z.looseObject({ media_keys: z.array(z.string()).optional() }).optional(),
  public_metrics: counts.optional(),
  withheld: z.looseObject({ copyright: z.boolean().optional(), country_codes: z.array(z.string()).optional(), scope: z.string().optional() }).optional(),
  note_tweet: note.optional(),
  note_post: note.optional(),
});

export const recordedUser = z.looseObject({
  id,
  username: z.string().regex(/^[A-Za-z0-9_]{1,15}$/),
  name: z.string().optional(),
  created_at: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  verified: z.boolean().optional(),
  protected: z.boolean().optional(),
  public_metrics: z.looseObject({ followers_count: z.number().int().min(0).optional() }).optional(),
  withheld: z.looseObject({ country_codes: z.array(z.string()).optional(), scope: z.string().optional() }).optional(),
});

export const recordedMedia = z.looseObject({
  media_key: z.string().regex(/^[0-9]+_[0-9]+$/),
  type: z.enum(['photo', 'video', 'animated_gif']),
  url: z.string().optional(),
  preview_image_url: z.string().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  alt_text: z.string().optional(),
});

const includes = z.looseObject({
  tweets: z.array(recordedPost).optional(),
  posts: z.array(recordedPost).optional(),
  users: z.array(recordedUser).optional(),
  media: z.array(recordedMedia).optional(),
});

/** A recorded answer of an endpoint that serves posts (or users): `data` one object or an array, `includes`. */
export const recordedAnswerSchema = z.looseObject({
  data: z.union([z.array(z.union([recordedPost, recordedUser])), recordedPost, recordedUser]).optional(),
  includes: includes.optional(),
});

export type RecordedPost = z.infer<typeof recordedPost>;
export type RecordedUser = z.infer<typeof recordedUser>;
export type RecordedMedia = z.infer<typeof recordedMedia>;
export type RecordedAnswer = z.infer<typeof recordedAnswerSchema>;
