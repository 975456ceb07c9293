import createOpenApiClient, { type Client, type Middleware } from 'openapi-fetch';
import type { HttpMethod, PageItem, PagedPath, PathsFor, QueryOf, RequestArgs, ResponseFor } from './api-types';
import { watchFeed, type ReadFeedPage, type WatchOptions } from './feed-watch';
import type { paths } from './generated/schema';
import { errorFromResponse, networkError } from './hashwatch-error';
import { rateLimitWaitMs, sleep } from './rate-limit-wait';

export interface ClientOptions {
  /** Origin of the API, e.g. `http://localhost:3000`; default '' (same origin, for the browser dashboard). */
  baseUrl?: string;
  /** An API key, for backends: sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The dashboard's session CSRF token: sent as `X-CSRF-Token` on POST, PUT, PATCH and DELETE when it returns one. */
  csrfToken?: () => string | undefined;
  /** Default `globalThis.fetch` (a browser sends the session cookie to its own origin). */
  fetch?: typeof fetch;
  /**
   * A 429 waits as long as it says (`Retry-After`, else `X-RateLimit-Reset`) and retries, while the waits of one
   * call add up to at most this many ms (default 60 000); past that the call throws the 429.
   */
  maxRateLimitWaitMs?: number;
}

export interface PagesOptions<P extends PagedPath> {
  /** The list's filters and `limit` (page size); `cursor` is followed for you. */
  query?: QueryOf<P>;
  signal?: AbortSignal;
}

type Method<M extends HttpMethod> = <P extends PathsFor<M>>(path: P, ...options: RequestArgs<P, M>) => Promise<ResponseFor<P, M>>;

export interface HashwatchClient {
  get: Method<'get'>;
  post: Method<'post'>;
  put: Method<'put'>;
  patch: Method<'patch'>;
  delete: Method<'delete'>;
  /** Every item of a cursor-paged list (`/v1/posts`, `/v1/notices`, `/v1/notifications/deliveries`), page after page. */
  pages<P extends PagedPath>(path: P, options?: PagesOptions<P>): AsyncGenerator<PageItem<P>, void, undefined>;
  /** New feed items, each once, oldest first, polling `GET /v1/posts` with `since` until `signal` aborts. */
  watch(options?: WatchOptions): ReturnType<typeof watchFeed>;
  /** The underlying openapi-fetch client (same base URL, key, CSRF header and fetch), answering `{data, error, response}`. */
  readonly raw: Client<paths>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function csrfMiddleware(csrfToken: () => string | undefined): Middleware {
  return {
    onRequest({ request }) {
      if (!UNSAFE.has(request.method)) return undefined;
      const token = csrfToken();
      if (token) request.headers.set('X-CSRF-Token', token);
      return request;
    },
  };
}

function isAbort(error: unknown, signal: AbortSignal | undefined | null): boolean {
  return Boolean(signal?.aborted) || (error instanceof Error && error.name === 'AbortError');
}

/** A typed client of the Hashwatch API: each call resolves with the 2xx body or throws `HashwatchError`. */
export function createClient(options: ClientOptions = {}): HashwatchClient {
  const customFetch = options.fetch;
  const maxWait = options.maxRateLimitWaitMs ?? 60_000;
  const raw = createOpenApiClient<paths>({
    baseUrl: options.baseUrl ?? '',
    // Looked up per request, unbound: a browser's fetch refuses to run with another `this`.
    fetch: (request) => (customFetch ? customFetch(request) : globalThis.fetch(request)),
    ...(options.apiKey ? { headers: { Authorization: `Bearer ${options.apiKey}` } } : {}),
  });
  if (options.csrfToken) raw.use(csrfMiddleware(options.csrfToken));

  async function call(method: HttpMethod, path: string, init: { signal?: AbortSignal | null } = {}): Promise<unknown> {
    let waited = 0;
    for (;;) {
      let result: { data?: unknown; error?: unknown; response: Response };
      try {
        result = await raw.request(method, path as never, init as never);
      } catch (error) {
        if (isAbort(error, init.signal)) throw error;
        throw networkError(error);
      }
      const { response } = result;
      if (response.ok) return result.data;
      const failure = errorFromResponse(response, result.error);
      const wait = response.status === 429 ? rateLimitWaitMs(response.headers) : undefined;
      if (wait === undefined || waited + wait > maxWait) throw failure;
      waited += wait;
      await sleep(wait, init.signal);
    }
  }

  const method = <M extends HttpMethod>(name: M): Method<M> => ((path: string, init?: object) => call(name, path, init)) as Method<M>;

  async function* pages<P extends PagedPath>(path: P, pageOptions: PagesOptions<P> = {}): AsyncGenerator<PageItem<P>, void, undefined> {
    let cursor: string | undefined;
    do {
      const query = { ...pageOptions.query, ...(cursor === undefined ? {} : { cursor }) };
      const page = (await call('get', path, { params: { query }, signal: pageOptions.signal } as object)) as Record<string, unknown>;
      const items = Object.values(page).find(Array.isArray) ?? [];
      for (const item of items) yield item as PageItem<P>;
      cursor = typeof page.next_cursor === 'string' ? page.next_cursor : undefined;
    } while (cursor !== undefined);
  }

  const readFeedPage: ReadFeedPage = (query, signal) => call('get', '/v1/posts', { params: { query }, signal } as object) as ReturnType<ReadFeedPage>;

  return {
    get: method('get'),
    post: method('post'),
    put: method('put'),
    patch: method('patch'),
    delete: method('delete'),
    pages,
    watch: (watchOptions) => watchFeed(readFeedPage, watchOptions),
    raw,
  };
}
