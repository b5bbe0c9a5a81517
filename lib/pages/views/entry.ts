import type { EntryJson } from '../../entries/reads.ts';
import type { Tally } from '../../entries/votes.ts';
import type { PreviewJson } from '../../preview/store.ts';
import { splitLinks } from '../../text/links.ts';
import { withNext } from '../../../web/static/next-path.js';
import { html, type Child, type Html } from '../../text/html.ts';
import { germanDateTime, isoTime } from '../../text/german.ts';

/**
 * An entry as a card on the server's pages, in the front end's markup and classes
 * (web/static/components/entry.js), so the page looks the same before and after the front end
 * draws it. Without scripts the votes are counts, not buttons, and every action is a link.
 */

/** The vote tallies of a page's entries by pid (one query per page: findTallies). */
export type Tallies = ReadonlyMap<number, Pick<Tally, 'yes' | 'no'>>;

/**
 * How a card is drawn: compact (a latest reply), replyContext ("Antwort auf", the profile),
 * onOwnPage (no link to its replies), mark (a search's terms, marked in the text: termsPattern).
 */
export interface CardOptions {
  compact?: boolean;
  replyContext?: boolean;
  onOwnPage?: boolean;
  mark?: RegExp;
}

/** Links in user text: no referrer value and no ranking credit (as the front end's externalRel). */
const externalRel = 'nofollow noopener ugc';

export function userHref(username: string): string {
  return `/u/${encodeURIComponent(username)}`;
}

/** A <time> with the readable German date; the front end makes it relative. */
export function timeOf(seconds: number): Html {
  return html`<time datetime="${isoTime(seconds)}" title="${germanDateTime(seconds)}" data-ts="${seconds}">${germanDateTime(seconds)}</time>`;
}

/** The avatar's colour from the name; mirrors colourIndex in web/static/markup/avatar.js. */
function colourIndex(name: string): number {
  let sum = 0;
  for (const ch of name) sum = (sum * 31 + ch.codePointAt(0)!) % 8;
  return sum;
}

/** The picture, or the initial on a colour; decorative next to the name. */
export function avatarOf(username: string, path: string, size: 'small' | 'medium' | 'large' = 'small'): Html {
  if (path)
    return html`<img class="avatar avatar-${size}" src="/static/media/${path}" alt="" width="256" height="256" loading="lazy">`;
  const initial = [...username][0]?.toUpperCase() ?? '?';
  return html`<span class="avatar avatar-${size} avatar-c${colourIndex(username || '?')}" aria-hidden="true">${initial}</span>`;
}

/**
 * The text with every match of `mark` in <mark>, each match of the pattern as markWords in
 * web/static/components/highlight.js marks it in a text node (the search page).
 */
function marked(text: string, mark: RegExp | undefined): Child {
  if (!mark) return text;
  const pieces: Child[] = [];
  let at = 0;
  for (const match of text.matchAll(mark)) {
    if (match[0] === '') continue;
    pieces.push(text.slice(at, match.index), html`<mark>${match[0]}</mark>`);
    at = match.index + match[0].length;
  }
  pieces.push(text.slice(at));
  return pieces;
}

/** The text with its http(s) links as anchors; the link text isolated (<bdi>) as in the front end. */
export function entryText(content: string, mark?: RegExp): Html {
  const parts = splitLinks(content).map((part) =>
    typeof part === 'string'
      ? marked(part, mark)
      : html`<a href="${part.url}" rel="${externalRel}" class="external"><bdi>${marked(part.url, mark)}</bdi></a>`,
  );
  return html`<p class="entry-text">${parts}</p>`;
}

export function previewCard(preview: PreviewJson): Html {
  const video = preview.kind === 'youtube';
  return html`<a class="preview${video ? ' preview-video' : ''}" href="${preview.url}" rel="${externalRel}">${
    preview.thumb ? html`<img class="preview-thumb" src="/static/media/${preview.thumb}" alt="" loading="lazy">` : null
  }<span class="preview-text">${video ? html`<span class="preview-badge">▶ YouTube-Video</span>` : null}<span class="preview-title">${preview.title}</span><span class="preview-site">${preview.site}</span></span></a>`;
}

/** The moderation's public reason, or the author's deletion (as goneNote in the front end). */
export function goneNote(entry: EntryJson): string {
  return entry.removed ? `Von der Moderation entfernt: ${entry.removed_reason}` : 'Dieser Beitrag wurde gelöscht.';
}

function authorLine(entry: EntryJson, opts: CardOptions): Html {
  const name = entry.username;
  const who = name
    ? html`<a class="author" href="${userHref(name)}">${name}</a>`
    : html`<span class="author author-gone">gelöschtes Konto</span>`;
  const picture = name
    ? html`<a href="${userHref(name)}" tabindex="-1" aria-hidden="true">${avatarOf(name, entry.avatar)}</a>`
    : avatarOf('', '');
  return html`<header class="entry-head">${picture}<div class="entry-meta">${who}<a class="entry-time" href="/e/${entry.pid}">${timeOf(entry.created_at)}</a>${
    entry.edited_at ? html`<span class="entry-edited">bearbeitet ${timeOf(entry.edited_at)}</span>` : null
  }${entry.bump_count > 0 ? html`<span class="badge">${entry.bump_count}× hochgeholt</span>` : null}${
    opts.replyContext && entry.reply_to
      ? html`<span class="entry-context">Antwort auf <a href="/e/${entry.reply_to}">Beitrag #${entry.reply_to}</a></span>`
      : null
  }</div></header>`;
}

function entryBody(entry: EntryJson, mark: RegExp | undefined): Html {
  if (entry.deleted)
    return html`<div class="entry-body"><p class="entry-text deleted-note${entry.removed ? ' removed-note' : ''}">${marked(goneNote(entry), mark)}</p></div>`;
  const alt = entry.alt || `Bild von ${entry.username || 'einem gelöschten Konto'}`;
  return html`<div class="entry-body">${entry.content ? entryText(entry.content, mark) : null}${
    entry.filepath
      ? html`<a class="entry-image-link" href="/static/media/${entry.filepath}"><img class="entry-image" src="/static/media/${entry.filepath}" alt="${alt}" loading="lazy"></a>`
      : null
  }${entry.preview ? previewCard(entry.preview) : null}</div>`;
}

/** Yes and no as counts (the front end turns them into buttons). */
function votes(tally: Pick<Tally, 'yes' | 'no'>): Html {
  return html`<span class="votes" role="group" aria-label="Abstimmung"><span class="vote vote-yes"><span class="vote-icon" aria-hidden="true">▲</span> Ja <span class="vote-count">${tally.yes}</span></span><span class="vote vote-no"><span class="vote-icon" aria-hidden="true">▼</span> Nein <span class="vote-count">${tally.no}</span></span></span>`;
}

function repliesLink(entry: EntryJson, opts: CardOptions): Html | null {
  if (entry.reply_count === 0 || opts.onOwnPage) return null;
  return html`<a class="action replies-link" href="/e/${entry.pid}">${
    entry.reply_count === 1 ? '1 Antwort ansehen' : `Alle ${entry.reply_count} Antworten`
  }</a>`;
}

export function entryCard(entry: EntryJson, tallies: Tallies, opts: CardOptions = {}): Html {
  const classes = `entry${opts.compact ? ' entry-compact' : ''}${entry.deleted ? ' entry-deleted' : ''}`;
  const tally = tallies.get(entry.pid) ?? { yes: 0, no: 0 };
  return html`<article class="${classes}" id="e${entry.pid}" data-pid="${entry.pid}" data-uid="${entry.uid}">${authorLine(entry, opts)}${entryBody(entry, opts.mark)}<div class="entry-actions">${
    entry.deleted ? null : votes(tally)
  }${repliesLink(entry, opts)}</div></article>`;
}

/** A card with its thread's newest reply under it (as entryWithLatest in the front end). */
export function entryWithLatest(entry: EntryJson, tallies: Tallies, opts: CardOptions = {}): Html {
  const card = entryCard(entry, tallies, opts);
  if (!entry.latest) return card;
  const { entry: latest, skipped } = entry.latest;
  const between =
    skipped > 0
      ? html`<a class="skipped" href="/e/${latest.reply_to}">${
          skipped === 1 ? '1 weitere Antwort dazwischen ansehen' : `${skipped} weitere Antworten dazwischen ansehen`
        }</a>`
      : null;
  return html`<div class="thread-item">${card}<div class="latest" role="group" aria-label="Neueste Antwort">${between}${entryCard(latest, tallies, { compact: true, mark: opts.mark })}</div></div>`;
}

/** Every entry a list shows, with the latest replies under them: the pids whose tallies it needs. */
export function shownPids(entries: readonly EntryJson[]): number[] {
  return entries.flatMap((entry) => (entry.latest ? [entry.pid, entry.latest.entry.pid] : [entry.pid]));
}

/**
 * The way to log in for an action, and back here afterwards (as loginOffer in
 * web/static/components/login-offer.js): the drawn page is the same for everyone, and the front
 * end puts the writing form in its place for a reader who is logged in.
 */
export function loginOffer(what: string, back: string): Html {
  return html`<p class="note login-offer">Zum ${what} bitte <a href="${withNext('/login', back)}">anmelden</a> oder <a href="${withNext('/register', back)}">ein Konto anlegen</a>. Danach geht es genau hier weiter.</p>`;
}

/** "Neuere" / "Ältere" as links with rel prev/next; pages are ?seite=1… (API page + 1), as web/static/markup/pager.js. */
export function pageHref(basePath: string, page: number): string {
  return page === 0 ? basePath : `${basePath}${basePath.includes('?') ? '&' : '?'}seite=${page + 1}`;
}

export function pager(basePath: string, page: number, count: number, pageSize: number, maxPage: number): Html | null {
  const newer = page > 0 ? html`<a href="${pageHref(basePath, page - 1)}" rel="prev">← Neuere</a>` : null;
  const older =
    count >= pageSize && page < maxPage
      ? html`<a href="${pageHref(basePath, page + 1)}" rel="next">Ältere →</a>`
      : null;
  if (!newer && !older) return null;
  return html`<nav class="pager" aria-label="Seiten">${newer ?? html`<span></span>`}<span class="pager-page">Seite ${page + 1}</span>${older ?? html`<span></span>`}</nav>`;
}
