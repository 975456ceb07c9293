import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '@hashwatch/logger';
import { normalizePostCounts, normalizePostLookup, normalizePostPage, normalizeProblem, normalizeUser } from './normalize-response';
import type { BudgetState } from './rate-budget';
import { COUNT_FIELDS, MEDIA_FIELDS, POST_EXPANSIONS, POST_FIELDS, USER_FIELDS, type XEndpointName } from './x-endpoints';
import { XInvalidRequestError, XUnavailableError, XUserTokenRequiredError } from './x-errors';
import { createXTransport, parser, validate, type XClientSettings, type XRequestObserver, type XTransport } from './x-transport';
import {
  clientOptionsSchema,
  engagementParamsSchema,
  searchParamsSchema,
  snowflake,
  userPostsParamsSchema,
  username,
  type EngagementParams,
  type SearchRecentParams,
  type UserPostsParams,
} from './x-request.schema';
import {
  postCountsResponseSchema,
  postListResponseSchema,
  rulesLookupResponseSchema,
  rulesUpdateResponseSchema,
  singleUserResponseSchema,
  userListResponseSchema,
  type PostListResponse,
  type RulesUpdateResponse,
} from './x-response.schema';
import {
  readStream,
  type OpenStreamOptions,
  type XStreamEnd,
  type XStreamRule,
  type XStreamRuleChange,
  type XStreamRuleError,
  type XStreamRuleInput,
} from './x-stream';
import { COMPLIANCE_MAX_IDS, complianceJobResponseSchema, complianceStorage, normalizeComplianceJob, type XComplianceJob, type XComplianceResults } from './compliance';
import type { XPostCountsLookup, XPostLookup, XPostPage, XSingleUser, XUserLookup, XUserPage } from './x-types';

/** The query fields of every request that returns posts (search, timelines, lookups, the filtered stream). */
function postFields(params: URLSearchParams): URLSearchParams {
  params.set('tweet.fields', POST_FIELDS);
  params.set('expansions', POST_EXPANSIONS);
  params.set('user.fields', USER_FIELDS);
  params.set('media.fields', MEDIA_FIELDS);
  return params;
}

/** Logs, once per answer and post, each post X sent that was stored with only what could be trusted, or dropped. */
function withMalformedLogged<T extends XPostLookup>(logger: Logger, endpoint: XEndpointName, normalize: (body: PostListResponse) => T): (body: PostListResponse) => T {
  return (body) => {
    const lookup = normalize(body);
    for (const post of lookup.malformed) logger.warn('x post partly unreadable', { component: 'x-api', endpoint, postId: post.id, dropped: post.dropped });
    return lookup;
  };
}

export interface XClientOptions {
  /** Base of X API v2 without the /2, e.g. https://api.x.com or the simulator's address. */
  baseUrl: string;
  /** App-only bearer token: every endpoint but liking_users. */
  bearerToken: string;
  /** User-context token; X serves liking_users only to one. */
  userToken?: string;
  /** Holds the shared rate budget; every replica with the same keyPrefix shares it. */
  redis: Redis | Cluster;
  keyPrefix: string;
  logger: Logger;
  /** Per request; a timeout is an XUnavailableError. Default 10 s. */
  timeoutMs?: number;
  /** When the budget is used up: throw XRateLimitedError at once (default), or wait for the reset and retry. */
  onRateLimited?: 'throw' | 'wait';
  /** Longest total wait in 'wait' mode before throwing anyway. Default 16 minutes (one X window). */
  maxRateLimitWaitMs?: number;
  /** Longest search query the X plan accepts: 512 self-serve, 4096 Enterprise. Longer ones never leave. */
  maxQueryLength?: number;
  /** How long a 429 without x-rate-limit-reset blocks the endpoint. Default 60 s. */
  rateLimitFallbackSeconds?: number;
  /** Hears every HTTP request made (retries included), e.g. `xApiMetrics(registry).observer` of @hashwatch/metrics. */
  observer?: XRequestObserver;
}

/** Typed X API v2 client: field selection, both spellings normalised, typed errors, one shared rate budget. */
export interface XClient {
  /** GET /2/tweets/search/recent, newest first. maxResults defaults to 100: X bills per post, not per call. */
  searchRecent(params: SearchRecentParams): Promise<XPostPage>;
  /** GET /2/users/by for up to 100 handles; unknown handles come back in `errors`. */
  usersByUsernames(usernames: readonly string[]): Promise<XUserLookup>;
  /** GET /2/users/by/username/:username; `user` is null when X does not know the handle. */
  userByUsername(username: string): Promise<XSingleUser>;
  /** GET /2/users/:id/tweets, newest first. maxResults defaults to 100. */
  userPosts(userId: string, params?: UserPostsParams): Promise<XPostPage>;
  /** GET /2/tweets?ids= for up to 100 ids; deleted or unknown ones come back in `errors`. */
  postsByIds(ids: readonly string[]): Promise<XPostLookup>;
  /**
   * GET /2/tweets?ids= for up to 100 ids asking only for `public_metrics` (no expansions): the real counts of
   * each post, for pollers that need nothing else. Same endpoint and rate budget as postsByIds.
   */
  postCounts(ids: readonly string[]): Promise<XPostCountsLookup>;
  /** GET /2/tweets/:id/liking_users with the user token; throws XUserTokenRequiredError without one. */
  likingUsers(postId: string, params?: EngagementParams): Promise<XUserPage>;
  /** GET /2/tweets/:id/retweeted_by. */
  retweetedBy(postId: string, params?: EngagementParams): Promise<XUserPage>;
  /** What the shared budget knows about an endpoint's window. */
  readBudget(endpoint: XEndpointName): Promise<BudgetState | null>;
  /** GET /2/tweets/search/stream/rules, every page: the app's filtered-stream rules, oldest first. */
  streamRules(): Promise<XStreamRule[]>;
  /**
   * POST /2/tweets/search/stream/rules `{add}` (`dry_run=true` with `dryRun`): refused rules come back in
   * `errors` (X creates none of a request with any), not as a throw. No rules: no call.
   */
  addStreamRules(rules: readonly XStreamRuleInput[], options?: { dryRun?: boolean }): Promise<XStreamRuleChange>;
  /** POST /2/tweets/search/stream/rules `{delete:{ids}}`; unknown ids come back in `errors`. No ids: no call. */
  deleteStreamRules(ids: readonly string[]): Promise<XStreamRuleChange>;
  /**
   * GET /2/tweets/search/stream: connects (throwing the typed error of a refused connect: XRateLimitedError
   * with kind `too_many_connections` or `rate_limit`, XStreamNoRulesError for 409, XAuthError, XUnavailableError),
   * then reads until the connection ends and resolves with why. Aborting before the 200 resolves 'aborted' too.
   */
  openStream(options: OpenStreamOptions): Promise<XStreamEnd>;
  /** POST /2/compliance/jobs `{type: "tweets", name}`: a batch compliance job for post ids (one at a time per app). */
  createComplianceJob(name: string): Promise<XComplianceJob>;
  /** GET /2/compliance/jobs/:id. */
  complianceJob(id: string): Promise<XComplianceJob>;
  /** PUTs post ids (at most COMPLIANCE_MAX_IDS) to the job's signed upload address, which expires 15 minutes after creation. */
  uploadComplianceIds(job: XComplianceJob, ids: readonly string[]): Promise<void>;
  /** Reads a complete job's results from its signed download address: the ids X asks to act on, each once. */
  complianceResults(job: XComplianceJob): Promise<XComplianceResults>;
}

/** X takes RFC 3339 in whole seconds; flooring keeps an inclusive start_time from skipping a post. */
function xTime(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** An end_time rounded up to the second, so a window's last post is never cut off. */
function xEndTime(date: Date): string {
  return new Date(Math.ceil(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function postParams(entries: Record<string, string | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) params.set(key, value);
  return postFields(params);
}

function userPage(endpoint: XEndpointName) {
  return parser(endpoint, userListResponseSchema, (body): XUserPage => ({
    users: (body.data ?? []).map(normalizeUser),
    errors: (body.errors ?? []).map(normalizeProblem),
    meta: { resultCount: body.meta?.result_count ?? body.data?.length ?? 0, nextToken: body.meta?.next_token ?? null },
  }));
}

export function createXClient(options: XClientOptions): XClient {
  const settings = clientOptionsSchema.parse({ ...options, redis: undefined, logger: undefined, observer: undefined });
  const transport = createXTransport(settings, options.redis, options.logger, options.observer);
  return {
    ...searchEndpoints(transport, settings, options.logger),
    ...lookupEndpoints(transport, settings, options.logger),
    ...engagementEndpoints(transport, settings),
    ...streamEndpoints(transport, settings, options.logger),
    ...complianceEndpoints(transport, settings, options.logger),
    readBudget(endpoint) {
      return transport.budget.read(endpoint);
    },
  };
}

/** The endpoints that search or list posts. */
function searchEndpoints({ call }: XTransport, settings: XClientSettings, logger: Logger): Pick<XClient, 'searchRecent' | 'userPosts'> {
  return {
    async searchRecent(input) {
      const endpoint = 'search_recent';
      const params = validate(endpoint, searchParamsSchema, input);
      const length = [...params.query].length;
      if (length > settings.maxQueryLength) {
        throw new XInvalidRequestError({ endpoint, status: null }, `query is ${length} characters; the X plan accepts ${settings.maxQueryLength}`);
      }
      const query = postParams({
        query: params.query,
        max_results: String(params.maxResults ?? 100),
        since_id: params.sinceId,
        start_time: params.startTime && xTime(params.startTime),
        end_time: params.endTime && xEndTime(params.endTime),
        next_token: params.nextToken,
      });
      return call(endpoint, '/2/tweets/search/recent', query, settings.bearerToken, parser(endpoint, postListResponseSchema, withMalformedLogged(logger, endpoint, normalizePostPage)));
    },

    async userPosts(userId, input) {
      const endpoint = 'user_posts';
      const id = validate(endpoint, snowflake, userId);
      const params = validate(endpoint, userPostsParamsSchema, input ?? {});
      const query = postParams({
        max_results: String(params.maxResults ?? 100),
        since_id: params.sinceId,
        start_time: params.startTime && xTime(params.startTime),
        pagination_token: params.paginationToken,
        exclude: params.exclude && params.exclude.length > 0 ? [...new Set(params.exclude)].join(',') : undefined,
      });
      return call(endpoint, `/2/users/${id}/tweets`, query, settings.bearerToken, parser(endpoint, postListResponseSchema, withMalformedLogged(logger, endpoint, normalizePostPage)));
    },
  };
}

/** The endpoints that look users and posts up by handle or id. */
function lookupEndpoints({ call }: XTransport, settings: XClientSettings, logger: Logger): Pick<XClient, 'usersByUsernames' | 'userByUsername' | 'postsByIds' | 'postCounts'> {
  return {
    async usersByUsernames(usernames) {
      const endpoint = 'users_by_usernames';
      const names = validate(endpoint, z.array(username).max(100), [...new Set(usernames)]);
      if (names.length === 0) return { users: [], errors: [] };
      const query = new URLSearchParams({ usernames: names.join(',') });
      return call(endpoint, '/2/users/by', query, settings.bearerToken, parser(endpoint, userListResponseSchema, (body) => ({
        users: (body.data ?? []).map(normalizeUser),
        errors: (body.errors ?? []).map(normalizeProblem),
      })));
    },

    async userByUsername(handle) {
      const endpoint = 'user_by_username';
      const name = validate(endpoint, username, handle);
      return call(endpoint, `/2/users/by/username/${name}`, new URLSearchParams(), settings.bearerToken, parser(endpoint, singleUserResponseSchema, (body) => ({
        user: body.data ? normalizeUser(body.data) : null,
        errors: (body.errors ?? []).map(normalizeProblem),
      })));
    },

    async postsByIds(ids) {
      const endpoint = 'posts_lookup';
      const unique = validate(endpoint, z.array(snowflake).max(100), [...new Set(ids)]);
      if (unique.length === 0) return { posts: [], includedPosts: [], errors: [], malformed: [] };
      return call(endpoint, '/2/tweets', postParams({ ids: unique.join(',') }), settings.bearerToken, parser(endpoint, postListResponseSchema, withMalformedLogged(logger, endpoint, normalizePostLookup)));
    },

    async postCounts(ids) {
      const endpoint = 'posts_lookup';
      const unique = validate(endpoint, z.array(snowflake).max(100), [...new Set(ids)]);
      if (unique.length === 0) return { posts: [], errors: [] };
      const query = new URLSearchParams({ ids: unique.join(','), 'tweet.fields': COUNT_FIELDS });
      return call(endpoint, '/2/tweets', query, settings.bearerToken, parser(endpoint, postCountsResponseSchema, normalizePostCounts));
    },
  };
}

/** Who liked or reposted a post; liking users only with the user token, as X serves them. */
function engagementEndpoints({ call }: XTransport, settings: XClientSettings): Pick<XClient, 'likingUsers' | 'retweetedBy'> {
  const engagement = (endpoint: 'liking_users' | 'retweeted_by', postId: string, input: EngagementParams | undefined, bearer: string) => {
    const id = validate(endpoint, snowflake, postId);
    const params = validate(endpoint, engagementParamsSchema, input ?? {});
    const query = new URLSearchParams({ max_results: String(params.maxResults ?? 100) });
    if (params.paginationToken) query.set('pagination_token', params.paginationToken);
    return call(endpoint, `/2/tweets/${id}/${endpoint}`, query, bearer, userPage(endpoint));
  };
  return {
    async likingUsers(postId, input) {
      if (!settings.userToken) throw new XUserTokenRequiredError('liking_users');
      return engagement('liking_users', postId, input, settings.userToken);
    },
    async retweetedBy(postId, input) {
      return engagement('retweeted_by', postId, input, settings.bearerToken);
    },
  };
}

/** Batch compliance: the job through X's API (app-only, its own budgets), the ids and results through signed storage. */
function complianceEndpoints(
  { call }: XTransport,
  settings: XClientSettings,
  logger: Logger,
): Pick<XClient, 'createComplianceJob' | 'complianceJob' | 'uploadComplianceIds' | 'complianceResults'> {
  const storage = complianceStorage({ timeoutMs: settings.timeoutMs, logger });
  return {
    async createComplianceJob(name) {
      const endpoint = 'compliance_jobs_create';
      const jobName = validate(endpoint, z.string().min(1).max(64), name);
      return call(endpoint, '/2/compliance/jobs', new URLSearchParams(), settings.bearerToken, parser(endpoint, complianceJobResponseSchema, normalizeComplianceJob), {
        json: { type: 'tweets', name: jobName },
      });
    },
    async complianceJob(id) {
      const endpoint = 'compliance_jobs_read';
      const jobId = validate(endpoint, snowflake, id);
      return call(endpoint, `/2/compliance/jobs/${jobId}`, new URLSearchParams(), settings.bearerToken, parser(endpoint, complianceJobResponseSchema, normalizeComplianceJob));
    },
    async uploadComplianceIds(job, ids) {
      validate('compliance_jobs_read', z.array(snowflake).min(1).max(COMPLIANCE_MAX_IDS), [...ids]);
      await storage.upload(job, ids);
    },
    async complianceResults(job) {
      return storage.download(job);
    },
  };
}

// X's rules lookup pages hold up to 1,000 rules; the 1,000-rule pay-per-use cap fits one page.
const RULES_PAGE_SIZE = 1000;
const ruleInputSchema = z.array(z.object({ value: z.string().min(1), tag: z.string().min(1).optional() }).strict());

/** The end of a problem type URL (`…/2/problems/rule-cap` → `rule-cap`), whichever host X used. */
function problemName(type: string | undefined): string {
  return type?.split('/problems/')[1] ?? type ?? 'about:blank';
}

function ruleChange(body: RulesUpdateResponse): XStreamRuleChange {
  const errors: XStreamRuleError[] = (body.errors ?? []).map((error) => {
    const out: XStreamRuleError = {
      type: problemName(error.type),
      detail: error.detail ?? (error.details && error.details.length > 0 ? error.details.join('; ') : undefined) ?? error.title ?? 'refused',
    };
    if (typeof error.value === 'string') out.value = error.value;
    if (error.id !== undefined) out.id = error.id;
    return out;
  });
  return {
    created: (body.data ?? []).map((rule) => ({ id: rule.id, value: rule.value, tag: rule.tag })),
    deleted: body.meta?.summary?.deleted ?? 0,
    errors,
  };
}

/** The filtered stream: its rules and the connection, app-only. */
function streamEndpoints(
  { call, openStream }: XTransport,
  settings: XClientSettings,
  logger: Logger,
): Pick<XClient, 'streamRules' | 'addStreamRules' | 'deleteStreamRules' | 'openStream'> {
  const log = logger.child({ component: 'x-api', endpoint: 'stream_connect' });
  const updateRules = (json: unknown, query: URLSearchParams) =>
    call('stream_rules_write', '/2/tweets/search/stream/rules', query, settings.bearerToken, parser('stream_rules_write', rulesUpdateResponseSchema, ruleChange), { json });
  return {
    async streamRules() {
      const endpoint = 'stream_rules_read';
      const rules: XStreamRule[] = [];
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ max_results: String(RULES_PAGE_SIZE) });
        if (token) query.set('pagination_token', token);
        const page = await call(endpoint, '/2/tweets/search/stream/rules', query, settings.bearerToken, parser(endpoint, rulesLookupResponseSchema, (body) => body));
        for (const rule of page.data ?? []) rules.push({ id: rule.id, value: rule.value, tag: rule.tag });
        token = page.meta?.next_token;
      } while (token);
      return rules;
    },

    async addStreamRules(input, options = {}) {
      const rules = validate('stream_rules_write', ruleInputSchema, [...input]);
      if (rules.length === 0) return { created: [], deleted: 0, errors: [] };
      const query = new URLSearchParams();
      if (options.dryRun) query.set('dry_run', 'true');
      return updateRules({ add: rules }, query);
    },

    async deleteStreamRules(input) {
      const ids = validate('stream_rules_write', z.array(snowflake), [...new Set(input)]);
      if (ids.length === 0) return { created: [], deleted: 0, errors: [] };
      return updateRules({ delete: { ids } }, new URLSearchParams());
    },

    async openStream(options) {
      const query = postFields(new URLSearchParams());
      let stream;
      try {
        stream = await openStream('stream_connect', '/2/tweets/search/stream', query, settings.bearerToken, options.signal);
      } catch (error) {
        if (options.signal.aborted && error instanceof XUnavailableError) return { reason: 'aborted', malformedLines: 0, posts: 0 };
        throw error;
      }
      const at = Date.now();
      log.info('x stream connected');
      options.onConnected?.(at);
      const end = await readStream(stream, options, log);
      log.info('x stream ended', { reason: end.reason, detail: end.detail, posts: end.posts, malformedLines: end.malformedLines });
      return end;
    },
  };
}
