import type { FetchOptions } from 'openapi-fetch';
import type { PathsWithMethod, RequiredKeysOf, SuccessResponseJSON } from 'openapi-typescript-helpers';
import type { components, paths } from './generated/schema';

/** Every schema of the API's OpenAPI document, by name (`Schemas['Track']`). */
export type Schemas = components['schemas'];

/** One item of the feed (`GET /v1/posts`). */
export type FeedItem = Schemas['Post'];

/** One system notice (`GET /v1/notices`). */
export type Notice = Schemas['Notice'];

/** The HTTP methods the API uses. */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that answer `method`. */
export type PathsFor<M extends HttpMethod> = PathsWithMethod<paths, M>;

type Operation<P extends keyof paths, M extends HttpMethod> = paths[P][M];

/** What a call takes beside the path: `params` (path, query), `body`, `headers`, `signal`. */
export type RequestOptionsFor<P extends PathsFor<M>, M extends HttpMethod> = FetchOptions<Operation<P, M>>;

/** The init argument: required when the operation has a required parameter or body, else optional. */
export type RequestArgs<P extends PathsFor<M>, M extends HttpMethod> =
  RequiredKeysOf<RequestOptionsFor<P, M>> extends never ? [options?: RequestOptionsFor<P, M>] : [options: RequestOptionsFor<P, M>];

/** The JSON body a 2xx answer of the operation carries (undefined for 204). */
export type ResponseFor<P extends PathsFor<M>, M extends HttpMethod> =
  SuccessResponseJSON<Operation<P, M> & Record<string | number, unknown>> extends infer Body
    ? [Body] extends [never] ? undefined : Body
    : never;

type Operations = { [P in keyof paths]: { [M in keyof paths[P]]: paths[P][M] }[keyof paths[P]] }[keyof paths];

type CodesOf<Op> = Op extends { responses: infer Responses }
  ? { [S in keyof Responses]: Responses[S] extends { content: { 'application/json': { error: { code: infer Code } } } } ? Code : never }[keyof Responses]
  : never;

/** Every error code the API's document lists (`invalid_request`, `not_found`, `rate_limited` …). */
export type ErrorCode = CodesOf<Operations>;

/** The query of a GET path, without `cursor` (paging sets it). */
export type QueryOf<P extends PathsFor<'get'>> = Operation<P, 'get'> extends { parameters: { query?: infer Query } }
  ? Omit<NonNullable<Query>, 'cursor'>
  : never;

/** GET paths that answer a page: `{ <items>: [...], next_cursor }`. */
export type PagedPath = {
  [P in PathsFor<'get'>]: ResponseFor<P, 'get'> extends { next_cursor: string | null } ? P : never;
}[PathsFor<'get'>];

/** The item type of a paged path (the element of its one array field). */
export type PageItem<P extends PagedPath> = {
  [K in keyof ResponseFor<P, 'get'>]: ResponseFor<P, 'get'>[K] extends readonly (infer Item)[] ? Item : never;
}[keyof ResponseFor<P, 'get'>];
