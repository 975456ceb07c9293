/**
 * The X API v2 endpoints the simulator serves. Each is one rate-limit bucket, as on X: limits apply per
 * endpoint per token (app-only bearer → per-app bucket, user token → per-user bucket).
 */
export const X_ENDPOINTS = [
  'search_recent',
  'posts_lookup',
  'post_by_id',
  'users_by_usernames',
  'user_by_username',
  'user_posts',
  'liking_users',
  'retweeted_by',
  'stream_connect',
  'stream_rules_read',
  'stream_rules_write',
  'compliance_jobs_create',
  'compliance_jobs_read',
] as const;

export type XEndpoint = (typeof X_ENDPOINTS)[number];

export interface EndpointLimit {
  app: number;
  user: number;
}

/**
 * Published per-15-minute limits of the pay-per-use era (docs.x.com fundamentals/rate-limits, July 2026).
 * liking_users has no app bucket on X (it refuses app-only tokens); the number is never used for apps. The
 * filtered-stream endpoints are app-only the other way round.
 */
export const DEFAULT_ENDPOINT_LIMITS: Record<XEndpoint, EndpointLimit> = {
  search_recent: { app: 450, user: 300 },
  posts_lookup: { app: 3500, user: 5000 },
  post_by_id: { app: 450, user: 900 },
  users_by_usernames: { app: 300, user: 900 },
  user_by_username: { app: 300, user: 900 },
  user_posts: { app: 10000, user: 900 },
  liking_users: { app: 75, user: 75 },
  retweeted_by: { app: 75, user: 75 },
  // The filtered stream takes app-only tokens (a user token is refused before any window); no user bucket.
  stream_connect: { app: 50, user: 0 },
  stream_rules_read: { app: 450, user: 0 },
  stream_rules_write: { app: 100, user: 0 },
  // Batch compliance: app-only, 150 per 15 minutes each.
  compliance_jobs_create: { app: 150, user: 0 },
  compliance_jobs_read: { app: 150, user: 0 },
};
