import type { Db } from '../../db/db.ts';
import { readThread, type EntryJson } from '../../entries/reads.ts';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { entryShareHead, entryTitle } from '../share.ts';
import { entryCard, entryWithLatest, loginOffer } from './entry.ts';
import { talliesOf, view } from './lists.ts';
import { hasLiveReplies } from '../../entries/reads.ts';

/** "Anna: Hallo Welt …" for the breadcrumb (as excerpt in web/static/format.js). */
function crumbText(entry: EntryJson, max = 40): string {
  const who = entry.username || 'gelöschtes Konto';
  if (entry.deleted) return `${who}: (${entry.removed ? 'entfernt' : 'gelöscht'})`;
  const chars = [...entry.content.replace(/\s+/g, ' ').trim()];
  const text =
    chars.length === 0 ? '(Bild)' : chars.length > max ? `${chars.slice(0, max).join('')} …` : chars.join('');
  return `${who}: ${text}`;
}

function breadcrumb(ancestors: EntryJson[], entry: EntryJson, skipped: number): Html {
  const crumb = (a: EntryJson) => html`<li><a href="/e/${a.pid}">${crumbText(a)}</a></li>`;
  const [root, ...near] = ancestors;
  return html`<nav class="breadcrumb" aria-label="Verlauf"><ol><li><a href="/">Neueste</a></li>${root ? crumb(root) : null}${
    skipped > 0 && near[0] ? html`<li><a href="/e/${near[0].reply_to}">… ${skipped} weitere Beiträge</a></li>` : null
  }${near.map(crumb)}<li aria-current="page">${crumbText(entry)}</li></ol></nav>`;
}

/**
 * "/e/{pid}": the breadcrumb of ancestors, the entry, its most active replies with their latest
 * (web/static/views/thread.js). A deleted or removed entry's text is gone from the page; its page
 * is 410 when nothing live hangs below it, else the thread with the entry marked gone. Undefined:
 * no such entry (404).
 */
export function threadPage(db: Db, origin: string, pid: number): PageView | undefined {
  const thread = readThread(db, pid);
  if (!thread) return undefined;
  const { entry, ancestors, replies } = thread;
  const gone = Boolean(entry.deleted);
  if (gone && !hasLiveReplies(db, pid))
    return {
      status: 410,
      title: entryTitle(entry),
      main: view(
        html`<h1>${entryTitle(entry)}</h1><p class="note">${
          entry.removed
            ? `Dieser Beitrag wurde von der Moderation entfernt: ${entry.removed_reason}`
            : 'Dieser Beitrag wurde gelöscht.'
        }</p><p><a href="/">Zu den neuesten Themen</a></p>`,
      ),
    };
  const tallies = talliesOf(db, [entry, ...replies]);
  const who = entry.username || 'einem gelöschten Konto';
  const count = replies.length === 1 ? '1 Antwort' : `${replies.length} Antworten`;
  return {
    status: 200,
    title: entryTitle(entry),
    head: gone ? undefined : entryShareHead(origin, entry),
    canonical: `${origin}/e/${pid}`,
    main: view(
      breadcrumb(ancestors, entry, thread.ancestors_skipped ?? 0),
      html`<h1>${entry.reply_to ? `Antwort von ${who}` : `Thema von ${who}`}</h1>`,
      entryCard(entry, tallies, { onOwnPage: true }),
      html`<section class="replies" aria-labelledby="replies-heading"><h2 id="replies-heading">${count}</h2>${
        replies.length
          ? html`<ul class="entry-list">${replies.map((reply) => html`<li>${entryWithLatest(reply, tallies)}</li>`)}</ul>`
          : html`<p class="empty">Noch keine Antworten.</p>`
      }${
        entry.reply_count > replies.length
          ? html`<p class="note">Gezeigt werden die ${replies.length} zuletzt aktiven Antworten.</p>`
          : null
      }</section>`,
      gone
        ? html`<p class="note">Auf einen ${entry.removed ? 'entfernten' : 'gelöschten'} Beitrag kann man nicht antworten.</p>`
        : loginOffer('Antworten', `/e/${pid}#e${pid}`),
    ),
  };
}
