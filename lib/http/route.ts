import type { RateGroup } from '../limits/rate-limit.ts';
import type { WriteGroup } from '../limits/write-limits.ts';
import type { Operation } from '../openapi/kit.ts';
import type { Tag } from '../openapi/tags.ts';
import type { Services } from '../services.ts';
import type { Ctx } from './context.ts';
import { parseCookies } from './cookies.ts';

/**
 * The route table's vocabulary (lib/routes.ts): one row per endpoint, `get(path, endpoint, policy)`,
 * describes it whole: method, path, the checks the pipeline makes before the handler, whether the
 * fast path answers it from the response cache, and (in the endpoint) its OpenAPI operation.
 */

/**
 * The parameter names of a path, as hono derives them: `'/api/entry/:pid/thread'` → `'pid'`,
 * `'/static/*'` → `'*'` (the rest of the path, still encoded). A handler reads only these.
 */
export type ParamsOf<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : Path extends `${string}/*`
      ? '*'
      : never;

export type Handler<Params extends string = never> = (ctx: Ctx<Params>) => unknown;

/**
 * An endpoint: a plain handler function in lib/api/ or lib/pages/ with its operation in the
 * OpenAPI document beside it (`feed.doc = {...}`). `Params` are the path parameters it reads; a
 * row whose path lacks one of them does not compile.
 */
export type Endpoint<Params extends string = never> = Handler<Params> & {
  readonly doc: Operation;
  /** It answers the front end's page shell: the front end draws a view for its path (web/static/pages.js). */
  readonly shell?: boolean;
};

export interface CachedPage {
  readonly status: number;
  readonly body: Buffer;
  readonly head: { readonly shared: readonly string[]; readonly own: readonly string[] };
}

/**
 * The response cache's answer for a cached row: the current body for these parameters, else
 * undefined. It reads the parameters as the handler does and counts a hit only when it returns a
 * body. `query`: the raw text after `?` of a `cacheQuery` row; any spelling but the ones it serves
 * answers undefined.
 */
export type CacheLookup<Params extends string = string> = (
  app: Services,
  params: Readonly<Record<Params, string>>,
  query: string | undefined,
) => Buffer | CachedPage | undefined;

export interface Policy<Params extends string = string> {
  readonly auth?: boolean;
  /** A moderator's session is required: 401 auth.required, then 403 mod.required before any path 400 or 404. */
  readonly mod?: boolean;
  readonly rateLimit?: RateGroup;
  readonly writeLimit?: WriteGroup;
  /**
   * Served from the response cache before the pipeline when current (lib/http/fast-path.ts). Only
   * for a GET that needs no session, limit or body: the fast path makes none of those checks.
   */
  readonly cache?: CacheLookup<Params>;
  /**
   * The cache's lookup is asked for request targets with a query string too (the pages' `?seite=N`,
   * the search page's `?q=…`): without it, a target with `?` always takes the pipeline.
   */
  readonly cacheQuery?: boolean;
  /**
   * Its 200 answer is the same for every logged-out reader (no session's `selected`, no cookie set),
   * so a shared cache in front may keep it a few seconds (lib/http/respond.ts cacheHeaders); a
   * request carrying a session cookie is never answered so (mayShare).
   */
  readonly shared?: boolean;
  /**
   * A GET answered 200 is a page view that counts an impression (docs/API.md "What counts"), from
   * the pipeline and the fast path alike (lib/http/page-views.ts countPageGet): the feed, a thread's
   * and a user's page. Their 404 and 410 pages count none.
   */
  readonly views?: boolean;
  /**
   * Part of federation (lib/federation/): with BOARD_FEDERATION=off the pipeline answers it as a path
   * the board does not have (404), before any other check, so an off board shows nothing new.
   */
  readonly federation?: boolean;
  /**
   * A page that is also an ActivityPub object: while federation is on, a request whose Accept asks
   * for JSON-LD (lib/http/negotiation.ts) is never answered from the response cache (the handler
   * answers the object), and both answers say `Vary: Accept`.
   */
  readonly negotiated?: boolean;
}

export interface Route extends Policy {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly handler: Endpoint<string>;
  readonly tag: Tag;
}

export type Row = Omit<Route, 'tag'>;

/** Only a GET may name a cache, be shared or count views: the fast path and shared caches answer nothing else. */
type GetPolicy<Path extends string> = Policy<ParamsOf<Path>>;
type PostPolicy = Omit<Policy, 'cache' | 'cacheQuery' | 'shared' | 'views'>;

export function get<Path extends string>(
  path: Path,
  endpoint: Endpoint<ParamsOf<Path>>,
  policy: GetPolicy<Path> = {},
): Row {
  return { method: 'GET', path, handler: endpoint as Endpoint<string>, ...(policy as Policy) };
}

export function post<Path extends string>(
  path: Path,
  endpoint: Endpoint<ParamsOf<Path>>,
  policy: PostPolicy = {},
): Row {
  return { method: 'POST', path, handler: endpoint as Endpoint<string>, ...policy };
}

export function group(tag: Tag, ...rows: Row[]): Route[] {
  return rows.map((row) => ({ ...row, tag }));
}

/**
 * Whether the answer to this row may go to a shared cache: the row is `shared` and the request has
 * no session cookie. Why the cookie, not the session: a cache in front sees only the cookie, and a
 * logged-in reader must read their own writes at once, never a copy seconds old.
 */
export function mayShare(route: Pick<Policy, 'shared'>, cookieHeader: string | undefined): boolean {
  return route.shared === true && !parseCookies(cookieHeader).session;
}
