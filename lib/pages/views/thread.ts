import type { Db } from '../../db/db.ts';
import { hasLiveReplies, readThread } from '../../entries/reads.ts';
import { drawnHtml } from '../../text/html.ts';
import { threadMarkup } from '../../../web/static/markup/thread.js';
import type { PageView } from '../layout.ts';
import { entryShareHead } from '../share.ts';
import { entryTitle } from '../../../web/static/titles.js';
import { talliesOf } from './lists.ts';

/**
 * "/e/{pid}" (web/static/markup/thread.js). A deleted or removed entry's text is gone from the
 * page, which shows it marked gone; it answers 410 when nothing live hangs below it (crawlers drop
 * it), else 200 with the thread. Undefined: no such entry (404).
 */
export function threadPage(db: Db, origin: string, pid: number): PageView | undefined {
  const thread = readThread(db, pid);
  if (!thread) return undefined;
  const { entry, replies } = thread;
  const gone = Boolean(entry.deleted) && !hasLiveReplies(db, pid);
  return {
    status: gone ? 410 : 200,
    title: entryTitle(entry),
    head: entry.deleted ? undefined : entryShareHead(origin, entry),
    canonical: gone ? undefined : `${origin}/e/${pid}`,
    main: drawnHtml(threadMarkup(thread, talliesOf(db, [entry, ...replies]))),
  };
}
