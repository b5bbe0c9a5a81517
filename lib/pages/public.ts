import { findPublicAccount } from '../accounts/users.ts';
import { cachedSearch, slowRefusals } from '../api/search.ts';
import type { EntryJson } from '../entries/reads.ts';
import { maxFeedPage, maxModlogPage } from '../product.ts';
import type { Ctx } from '../http/context.ts';
import { plainNumber } from '../http/fields.ts';
import type { CachedPage, CacheLookup } from '../http/route.ts';
import type { Services } from '../services.ts';
import { ApiError } from '../errors.ts';
import type { CachedDocument, DrawnPage } from '../http/response-cache.ts';
import { messages } from '../messages.ts';
import { readStatsDetail } from '../stats/stats.ts';
import { html as htmlAnswer, type Operation } from '../openapi/kit.ts';
import { layout, type PageView } from './layout.ts';
import { cachedPageAnswer, pageDocument, pageOf, pageParams, sendShell, shellOf, type Missing } from './shell.ts';
import { feedPage } from './views/feed.ts';
import { talliesOf } from './views/lists.ts';
import { modlogPage } from './views/modlog.ts';
import { profilePage } from './views/profile.ts';
import { searchPageView, type SearchAsked } from './views/search.ts';
import { statsPage } from './views/stats.ts';
import { threadPage } from './views/thread.ts';
import { usernameKey } from '../text/usernames.ts';
import { pageFromQuery } from '../../web/static/markup/pager.js';
import { responsesOf } from '../http/response-cache.ts';
import { answeredAsObject } from '../api/activitypub.ts';
import type { FederationRuntime } from '../federation/runtime.ts';
import { fediverseHandle } from '../federation/handles.ts';

/**
 * The public pages drawn on the server (docs/API.md "Pages without JavaScript"): the content in
 * HTML inside the front end's shell, so readers without scripts, text browsers, reader modes and
 * crawlers see it, drawn by the front end's own markup functions (web/static/markup/), so the front
 * end takes the page over instead of drawing it again. /, /e/{pid}
 * and /u/{username} count an impression when answered 200 (lib/http/page-views.ts); they, the
 * search pages and /modlog are kept in the response cache until a write changes what they show
 * (lib/http/response-cache.ts `page`).
 */

/**
 * The API page of a `seite` value as the fast path takes it (lib/routes.ts `cacheQuery`): only
 * the spellings pageHref makes, N from 2 to max+1 without sign or leading zero, which
 * pageFromQuery reads as N-1 too; anything else is undefined and takes the pipeline.
 */
function fastPage(seite: string, max: number): number | undefined {
  if (!plainNumber(seite)) return undefined;
  const n = Number(seite);
  return n >= 2 && n <= max + 1 ? n - 1 : undefined;
}

function fastListPage(query: string | undefined, max: number): number | undefined {
  if (query === undefined) return 0;
  return query.startsWith('seite=') ? fastPage(query.slice('seite='.length), max) : undefined;
}

/**
 * A search page's fast-path query: `q`, `user` and `seite` each at most once and nothing else, in
 * characters the pipeline's URL parser leaves as they are (so URLSearchParams reads the values as
 * ctx.url.searchParams does), `seite` as fastPage takes it. Anything else is undefined.
 */
function fastSearch(query: string): SearchAsked | undefined {
  if (!/^[\w\-.~!()*+,;:@%=&]*$/.test(query)) return undefined;
  const asked: SearchAsked = { q: '', user: '', page: 0 };
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (seen.has(name)) return undefined;
    seen.add(name);
    if (name === 'q') asked.q = value;
    else if (name === 'user') asked.user = value;
    else if (name === 'seite') {
      const page = fastPage(value, maxFeedPage);
      if (page === undefined) return undefined;
      asked.page = page;
    } else return undefined;
  }
  return asked;
}

/**
 * A key of its parts as a JSON array. Why not the parts joined: a part may hold any character
 * (a search's `q` and `user` are what the address says), so "Hallo\nWelt" by Alice and "Welt" by
 * "Alice\nHallo" joined with a line break were one key, and the second got the first's page.
 */
const keyOf = (...parts: (string | number)[]): string => JSON.stringify(parts);

const pageKeys = {
  home: (page: number) => keyOf('/', page),
  entry: (pid: number) => keyOf('/e/', pid),
  user: (name: string, page: number) => keyOf('/u/', usernameKey(name), page),
  search: (asked: SearchAsked) => keyOf('/suche', asked.page, asked.user, asked.q),
  modlog: (page: number) => keyOf('/modlog', page),
};

/**
 * A page from the response cache, else drawn now and kept, whatever its status: a gone entry's 410
 * page too, which crawlers keep asking for. A `fresh` view (it shows what ends by the clock) is
 * never kept, and neither is a 404: unknown ids have no bound.
 */
async function cachedView(
  ctx: Ctx,
  key: string,
  draw: () => PageView | undefined,
): Promise<{ status: number; doc?: CachedDocument }> {
  const shell = await shellOf(ctx.app.config);
  let fresh: DrawnPage | undefined;
  const page = responsesOf(ctx.app.db).page(key, () => {
    const view = draw();
    if (!view) return undefined;
    const drawn = { ...pageDocument(layout(shell, view)), status: view.status };
    if (!view.fresh) return drawn;
    fresh = drawn;
    return undefined;
  });
  const answer = page ?? fresh;
  return answer ? { status: answer.status, doc: answer } : { status: 404 };
}

/**
 * Sends a page as `draw` made it. Why a fallback: a page that cannot be drawn now (a failing disk)
 * is the plain shell (200), so the front end can say what failed, and the log says why.
 */
async function sendDrawn(
  ctx: Ctx,
  draw: () => Promise<{ status: number; doc?: CachedDocument }>,
  how: { missing?: Missing; negotiated?: boolean } = {},
): Promise<void> {
  let answer: { status: number; doc?: CachedDocument };
  try {
    answer = await draw();
  } catch (err) {
    ctx.app.log(`error GET ${ctx.url.pathname}: the page is the shell, not drawn: ${(err as Error).message}`);
    answer = { status: 200 };
  }
  return sendShell(ctx, answer.status, answer.doc?.body, how);
}

const isNegotiated = (app: Services) => app.config.federation !== 'off';

export async function home(ctx: Ctx) {
  const page = pageFromQuery(ctx.url.searchParams, maxFeedPage);
  const { db, config } = ctx.app;
  return sendDrawn(ctx, () => cachedView(ctx, pageKeys.home(page), () => feedPage(db, config.origin, page)));
}
home.doc = {
  id: 'homePage',
  summary: 'The newest threads drawn in HTML, ?seite=N for later pages (counts an impression)',
  ok: htmlAnswer(200, 'the page'),
} satisfies Operation;
home.shell = true;

export const cachedHome: CacheLookup<never> = (app, _params, query) => {
  const page = fastListPage(query, maxFeedPage);
  return page === undefined ? undefined : cachedPageOf(app, pageKeys.home(page));
};

function cachedPageOf(app: Services, key: string, negotiated = false): CachedPage | undefined {
  const page = responsesOf(app.db).cachedPage(key);
  return page && cachedPageAnswer(page, negotiated);
}

export async function entryPage(ctx: Ctx<'pid'>) {
  const pid = pageParams.pid!.test(ctx.params.pid) ? Number(ctx.params.pid) : 0;
  const negotiated = isNegotiated(ctx.app);
  if (pid === 0) return sendShell(ctx, 404, undefined, { negotiated });
  if (await answeredAsObject(ctx, (federation) => federation.entryAnswer(pid))) return;
  const { db, config } = ctx.app;
  return sendDrawn(ctx, () => cachedView(ctx, pageKeys.entry(pid), () => threadPage(db, config.origin, pid)), {
    missing: 'entry',
    negotiated,
  });
}
entryPage.doc = {
  id: 'entryPage',
  summary:
    'The thread drawn in HTML with its share tags (counts an impression when answered 200); while federation is on, an ActivityPub Accept gets the Note as JSON-LD (410 a Tombstone)',
  ok: htmlAnswer(200, 'the thread; a gone entry with live replies is marked gone'),
  more: [
    htmlAnswer(404, 'the page with status 404: no such entry'),
    htmlAnswer(410, 'the entry is deleted or removed and nothing live hangs below it'),
  ],
} satisfies Operation;
entryPage.shell = true;

export const cachedEntryPage: CacheLookup<'pid'> = (app, { pid }) =>
  pageParams.pid!.test(pid) && Number(pid) > 0
    ? cachedPageOf(app, pageKeys.entry(Number(pid)), isNegotiated(app))
    : undefined;

export async function userPage(ctx: Ctx<'username'>) {
  const { db, config } = ctx.app;
  const object = (federation: FederationRuntime) => {
    const user = findPublicAccount(db, ctx.params.username);
    return user ? federation.actorAnswer(user.uid) : Promise.resolve(undefined);
  };
  if (await answeredAsObject(ctx, object)) return;
  return sendDrawn(
    ctx,
    async () => {
      const user = findPublicAccount(db, ctx.params.username);
      if (!user) return { status: 404 };
      const page = pageFromQuery(ctx.url.searchParams, maxFeedPage);
      return cachedView(ctx, pageKeys.user(user.username, page), () =>
        profilePage(
          db,
          config.origin,
          user,
          page,
          ctx.app.clock.now(),
          isNegotiated(ctx.app) ? fediverseHandle(config, user) : undefined,
        ),
      );
    },
    { missing: 'user', negotiated: isNegotiated(ctx.app) },
  );
}
userPage.doc = {
  id: 'userPage',
  summary:
    "A user's profile and entries drawn in HTML with its share tags, ?seite=N for later pages (counts an impression when answered 200); while federation is on, an ActivityPub Accept gets the Person as JSON-LD",
  ok: htmlAnswer(200, "the profile (with a ban in force) and the user's entries, when a public account has the name"),
  more: [htmlAnswer(404, 'the page with status 404: no public account has the name (an application has none)')],
} satisfies Operation;
userPage.shell = true;

/**
 * The fast path's lookup of /u/{username} and ?seite=N: the profile's page, current in the cache. The key
 * is the name as logins match it, so a renamed account's old name finds nothing (a rename drops
 * every page anyway).
 */
export const cachedUserPage: CacheLookup<'username'> = (app, { username }, query) => {
  const page = fastListPage(query, maxFeedPage);
  return page === undefined ? undefined : cachedPageOf(app, pageKeys.user(username, page), isNegotiated(app));
};

/**
 * GET /modlog and ?seite=N: the public moderation log. Kept in the response cache, though its JSON
 * is not: crawlers walk the pages, and a drawn page costs more than the JSON.
 */
export async function modlog(ctx: Ctx) {
  const page = pageFromQuery(ctx.url.searchParams, maxModlogPage);
  const { db, config } = ctx.app;
  return sendDrawn(ctx, () => cachedView(ctx, pageKeys.modlog(page), () => modlogPage(db, config.origin, page)));
}
modlog.doc = {
  id: 'modlogPage',
  summary: 'The public moderation log drawn in HTML, ?seite=N for later pages',
  ok: htmlAnswer(200, 'the page'),
} satisfies Operation;
modlog.shell = true;

export const cachedModlog: CacheLookup<never> = (app, _params, query) => {
  const page = fastListPage(query, maxModlogPage);
  return page === undefined ? undefined : cachedPageOf(app, pageKeys.modlog(page));
};

export async function stats(ctx: Ctx) {
  const { db, impressions, clock, config } = ctx.app;
  return sendShell(
    ctx,
    200,
    await pageOf(ctx, statsPage(config.origin, readStatsDetail(db, impressions, clock.now()))),
  );
}
stats.doc = {
  id: 'statsPage',
  summary: 'The statistics drawn in HTML',
  ok: htmlAnswer(200, 'the page'),
} satisfies Operation;
stats.shell = true;

/**
 * GET /suche?q=…[&user=…][&seite=N]: the search as a page, so a result has an address and the form
 * works without scripts. A page not in the cache costs a search: it counts against the search
 * rate limit as GET /api/search does, and its refusals are as slow (lib/api/search.ts).
 */
export async function searchPage(ctx: Ctx) {
  const asked: SearchAsked = {
    q: ctx.url.searchParams.get('q') ?? '',
    user: ctx.url.searchParams.get('user') ?? '',
    page: pageFromQuery(ctx.url.searchParams, maxFeedPage),
  };
  if (!asked.q.trim() && !asked.user) return sendShell(ctx, 200, await pageOf(ctx, searchPageView(asked)));
  const { db, limiter, clock } = ctx.app;
  const key = pageKeys.search(asked);
  const hit = responsesOf(db).cachedPage(key);
  if (hit) return sendShell(ctx, 200, hit.body);
  const wait = limiter.hit('search', ctx.ip, clock.now());
  if (wait > 0) {
    ctx.res.setHeader('Retry-After', String(wait));
    return sendShell(
      ctx,
      429,
      await pageOf(ctx, searchPageView(asked, { status: 429, message: messages['rate.limited'] })),
    );
  }
  const versions = responsesOf(db).pageVersions();
  let found: Buffer | undefined;
  try {
    found = await slowRefusals(ctx, () => cachedSearch(ctx, asked.q, asked.user, asked.page));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // A refusal is a page as well, with the API's status and headers: the form and why, and under a
    // flood of searches (503 search.busy) the Retry-After that says when to ask again.
    if (err.options.limit) ctx.app.metrics?.countRefusal(err.options.limit);
    for (const [name, value] of Object.entries(err.options.headers ?? {})) ctx.res.setHeader(name, value);
    const { message } = err.body().error as { message: string };
    return sendShell(ctx, err.status, await pageOf(ctx, searchPageView(asked, { status: err.status, message })));
  }
  const entries: EntryJson[] = found ? JSON.parse(found.toString('utf8')) : [];
  const view = searchPageView(asked, { entries, tallies: talliesOf(db, entries) });
  const doc = pageDocument(layout(await shellOf(ctx.app.config), view));
  responsesOf(db).keepPage(key, versions, { ...doc, status: 200 });
  return sendShell(ctx, 200, doc.body);
}
searchPage.doc = {
  id: 'searchPage',
  summary: 'Search results drawn in HTML (?q=, &user=, &seite=; counts against the search rate limit)',
  ok: htmlAnswer(200, 'the form, or the results'),
  more: [
    htmlAnswer(400, 'the form with why: q too long or too many words'),
    htmlAnswer(404, 'the form with why: no such author'),
    htmlAnswer(429, 'the form with why: too many searches (Retry-After)'),
    htmlAnswer(503, 'the form with why: the search threads are busy (Retry-After)'),
  ],
} satisfies Operation;
searchPage.shell = true;

/**
 * The fast path's lookup of /suche?q=…: a search page, current in the cache. A hit costs no search,
 * so the pipeline counts it against no limit either; a page not kept takes the pipeline.
 */
export const cachedSearchPage: CacheLookup<never> = (app, _params, query) => {
  const asked = query === undefined ? undefined : fastSearch(query);
  return asked && cachedPageOf(app, pageKeys.search(asked));
};
