import type { Ctx } from '../../lib/http/context.ts';
import { type CacheLookup, get, type ParamsOf, post } from '../../lib/http/route.ts';
import { json, type Operation, status } from '../../lib/openapi/kit.ts';

/**
 * Type-level tests of the route table's rows (lib/http/route.ts), checked by `make typecheck`
 * (nothing here runs): every line under `@ts-expect-error` must fail to compile, else tsc fails
 * with "Unused '@ts-expect-error' directive", so the types cannot stop catching these mistakes.
 */

type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The parameter names come from the path, as hono derives them.
export const derived = [
  true satisfies Equal<ParamsOf<'/api/entry/:pid/thread'>, 'pid'>,
  true satisfies Equal<ParamsOf<'/api/u/:username/feed/:page'>, 'username' | 'page'>,
  true satisfies Equal<ParamsOf<'/n/:token'>, 'token'>,
  true satisfies Equal<ParamsOf<'/static/*'>, '*'>,
  true satisfies Equal<ParamsOf<'/api/stats'>, never>,
];

const doc: Operation = { id: 'example', summary: 'an example', ok: json('ok', status('ok')) };

export function readsPid(ctx: Ctx<'pid'>) {
  return ctx.params.pid.length;
}
readsPid.doc = doc;

export function readsNothing(ctx: Ctx) {
  return ctx.url.pathname;
}
readsNothing.doc = doc;

export function readsPageOfPid(ctx: Ctx<'pid'>) {
  // @ts-expect-error a handler reads only the parameters of its own context
  return ctx.params.page;
}

export const rows = [
  get('/api/entry/:pid/thread', readsPid),
  post('/api/entry/:pid/vote', readsPid),
  // A handler may leave a parameter of its path unread.
  get('/api/entry/:pid/votes', readsNothing),
  // @ts-expect-error a handler that reads :pid cannot serve a path without it
  get('/api/stats', readsPid),
  // @ts-expect-error nor a path whose parameter has another name
  get('/api/modlog/:page', readsPid),
  // @ts-expect-error every endpoint carries its OpenAPI operation
  get('/api/health', (ctx: Ctx) => ctx.url.pathname),
];

const cachedThread: CacheLookup<'pid'> = () => undefined;

export const cachedRows = [
  get('/api/entry/:pid/thread', readsPid, { cache: cachedThread }),
  // @ts-expect-error a cache lookup reads the parameters of its row's path
  get('/api/modlog/:page', readsNothing, { cache: cachedThread }),
  // @ts-expect-error the fast path answers GETs only
  post('/api/entry/:pid/vote', readsPid, { cache: cachedThread }),
];
