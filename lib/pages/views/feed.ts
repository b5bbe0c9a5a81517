import type { Db } from '../../db/db.ts';
import { readFeedPage } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage } from '../../product.ts';
import { drawnHtml } from '../../text/html.ts';
import { feedMarkup, feedTitle } from '../../../web/static/markup/feed.js';
import type { PageView } from '../layout.ts';
import { pagedLinks, talliesOf } from './lists.ts';

/** "/" and "/?seite=N": the newest threads with their latest replies (web/static/markup/feed.js). */
export function feedPage(db: Db, origin: string, page: number): PageView {
  const entries = readFeedPage(db, page);
  const hasNext = entries.length >= feedPageSize && page < maxFeedPage;
  return {
    status: 200,
    title: feedTitle(page),
    ...pagedLinks(origin, '/', page, hasNext),
    main: drawnHtml(feedMarkup(page, entries, talliesOf(db, entries))),
  };
}
