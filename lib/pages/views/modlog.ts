import type { Db } from '../../db/db.ts';
import { maxModlogPage, modlogPageSize } from '../../product.ts';
import { readPublicModlog } from '../../modlog/modlog.ts';
import { drawnHtml } from '../../text/html.ts';
import { modlogMarkup, modlogTitle } from '../../../web/static/markup/modlog.js';
import type { PageView } from '../layout.ts';
import { pagedLinks } from './lists.ts';

/** "/modlog": the public moderation log, newest first (web/static/markup/modlog.js). */
export function modlogPage(db: Db, origin: string, page: number): PageView {
  const rows = readPublicModlog(db, page);
  const hasNext = rows.length >= modlogPageSize && page < maxModlogPage;
  return {
    status: 200,
    title: modlogTitle(page),
    ...pagedLinks(origin, '/modlog', page, hasNext),
    main: drawnHtml(modlogMarkup(page, rows)),
  };
}
