import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { countImpression, type ImpressionDeps } from '../stats/impressions.ts';
import { clientIp } from './client-ip.ts';
import type { HitLines } from './hit-lines.ts';
import { wantsActivityJson } from './negotiation.ts';
import { loggedPath } from './logged-path.ts';
import { everyAnswerHeaders } from './respond.ts';

/**
 * How a view of a page that counts (/, /e/{pid}, /u/{username}) reaches the statistics
 * (docs/API.md "What counts"); every way calls countView. Why several ways: SPEC counts the page
 * GET the board answers, but a shared cache in front answers most of them. So:
 * - `page`: the board answered the page 200 itself (the pipeline or the fast path, route rows with `views`);
 * - `notice`: deploy/nginx.conf tells the board of every page view it answers, its cache's hits
 *   included (nginx `mirror`: the same GET with `X-Board-View: mirror`, answered here at once, no
 *   page drawn); the page GET nginx forwards says `X-Board-View: mirrored`, so a miss counts once;
 * - `beacon`: with BOARD_IMPRESSION_BEACON=1 the page's own request (lib/pages/impression.ts), for a
 *   cache the board cannot see (a CDN); then the other two count nothing, so no view counts twice.
 */
export type ViewWay = 'page' | 'notice' | 'beacon';

const viewHeader = 'x-board-view';
const mirror = 'mirror';
const mirrored = 'mirrored';

/** Longer than any page path the board answers; a longer one counts nothing, unread. */
export const maxPagePath = 300;

export function countView(
  app: ImpressionDeps & { config: Pick<Config, 'impressionBeacon'> },
  way: ViewWay,
  ip: string,
  userAgent: string | undefined,
): boolean {
  // One way counts at a time, so no view counts twice: its GET (or notice) and its beacon.
  if ((way === 'beacon') !== app.config.impressionBeacon) return false;
  return countImpression(app, ip, userAgent ?? '');
}

/**
 * The proxy's mark on this request, honoured only with BOARD_TRUST_PROXY=1 like X-Forwarded-For:
 * only a trusted proxy replaces what a client sent, and without one a client could hide its views
 * or count views it never loaded.
 */
function proxyMark(req: IncomingMessage, config: Pick<Config, 'trustProxy'>): string | undefined {
  const mark = config.trustProxy ? req.headers[viewHeader] : undefined;
  return typeof mark === 'string' ? mark : undefined;
}

export function countPageGet(
  app: ImpressionDeps & { config: Pick<Config, 'impressionBeacon' | 'trustProxy'> },
  req: IncomingMessage,
  ip?: string,
): void {
  if (proxyMark(req, app.config) === mirrored) return;
  countView(app, 'page', ip ?? clientIp(req, app.config.trustProxy), req.headers['user-agent']);
}

export type CountedPage = (db: Db, path: string) => boolean;

/**
 * Answers the proxy's notice of a page view (X-Board-View: mirror) before anything else: 204,
 * counted when it is a GET of a page that counts, as its page GET would be; false for any other
 * request. Cheap on purpose: nginx sends one for every view, and a slow answer would hold the
 * reader's connection.
 */
export function answerViewNotice(
  app: ImpressionDeps & { config: Config },
  req: IncomingMessage,
  res: ServerResponse,
  countedPage: CountedPage,
  hitLines: HitLines,
): boolean {
  if (proxyMark(req, app.config) !== mirror) return false;
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  const get = req.method === 'GET';
  // Another server fetching the ActivityPub object of a page is no reader (lib/http/negotiation.ts).
  const object = app.config.federation !== 'off' && wantsActivityJson(req.headers.accept);
  if (get && !object && path.length <= maxPagePath && isCounted(app, countedPage, path))
    countView(app, 'notice', clientIp(req, true), req.headers['user-agent']);
  res.writeHead(204, { 'Cache-Control': 'no-store', ...everyAnswerHeaders });
  res.end();
  const logged = loggedPath(path.slice(0, maxPagePath));
  if (get) hitLines.count(logged, 204, 'view');
  else app.log(`${req.method} ${logged} 204 view`);
  return true;
}

function isCounted(app: ImpressionDeps, countedPage: CountedPage, path: string): boolean {
  try {
    return countedPage(app.db, path);
  } catch (err) {
    app.log(`error GET ${loggedPath(path)} (view notice): ${(err as Error).message}`);
    return false;
  }
}
