// An entry as a card, drawn alike by the server and the browser: author, time, text with links,
// image, link preview, the vote counts and the way to its replies. The browser then adds the
// actions (components/entry.js). User text only ever goes in as text.
import { h } from '../dom.js';
import { boardDateTime, isoTime, splitLinks } from '../format.js';
import { avatar } from './avatar.js';

/**
 * The vote counts of a page's entries by pid; an entry without one shows 0 and 0.
 * @typedef {ReadonlyMap<number, { yes: number, no: number }>} Tallies
 */

/**
 * How a card is drawn. compact: a latest reply; replyContext: "Antwort auf" (the profile);
 * onOwnPage: on its own page (no link to its replies, no reply button); mark: a search's terms,
 * marked; noActions: no row of actions (the moderation queue has its own).
 * @typedef {{ compact?: boolean, replyContext?: boolean, onOwnPage?: boolean, mark?: RegExp | null,
 *   noActions?: boolean }} CardOptions
 */

/** Links in user text: plain anchors, no referrer value and no ranking credit. */
export const externalRel = 'nofollow noopener ugc';

/**
 * A profile's address.
 * @param {string} username
 */
export function userHref(username) {
  return `/u/${encodeURIComponent(username)}`;
}

/**
 * A <time> with the German date; the browser shows it relative ("vor 5 Minuten") once the page is
 * its own, and keeps the exact time in the tooltip.
 * @param {number} seconds
 */
export function timeOf(seconds) {
  const when = boardDateTime(seconds);
  return h('time', { datetime: isoTime(seconds), title: when, 'data-ts': seconds }, when);
}

/**
 * The text with every match of `mark` in <mark> (a search's terms).
 * @param {string} text
 * @param {RegExp | null | undefined} mark
 */
function marked(text, mark) {
  if (!mark) return text;
  /** @type {(string | HTMLElement)[]} */
  const pieces = [];
  let at = 0;
  for (const match of text.matchAll(mark)) {
    if (match[0] === '') continue;
    pieces.push(text.slice(at, match.index), h('mark', {}, match[0]));
    at = match.index + match[0].length;
  }
  pieces.push(text.slice(at));
  return pieces;
}

/**
 * The entry's text with every http(s) link as a plain anchor; never parsed as HTML. The link text
 * is isolated (<bdi>), so right-to-left text around it cannot turn it into another address.
 * @param {string} content
 * @param {RegExp | null} [mark]
 */
export function entryText(content, mark) {
  return h(
    'p',
    { class: 'entry-text' },
    splitLinks(content).map((part) =>
      typeof part === 'string'
        ? marked(part, mark)
        : h('a', { href: part.url, rel: externalRel, class: 'external' }, h('bdi', {}, marked(part.url, mark))),
    ),
  );
}

/**
 * The preview card of the first link: local thumbnail, title, site; the video site marked.
 * @param {Api.Preview} preview
 */
export function previewCard(preview) {
  const video = preview.kind === 'youtube';
  return h(
    'a',
    { class: `preview${video ? ' preview-video' : ''}`, href: preview.url, rel: externalRel },
    preview.thumb
      ? h('img', { class: 'preview-thumb', src: `/static/media/${preview.thumb}`, alt: '', loading: 'lazy' })
      : null,
    h(
      'span',
      { class: 'preview-text' },
      video ? h('span', { class: 'preview-badge' }, '▶ YouTube-Video') : null,
      h('span', { class: 'preview-title' }, preview.title),
      h('span', { class: 'preview-site' }, preview.site),
    ),
  );
}

/**
 * The line a gone entry shows instead of its text: the moderation's public reason, or the author's deletion.
 * @param {Api.Entry} entry
 */
export function goneNote(entry) {
  return entry.removed
    ? `Dieser Beitrag wurde von der Moderation entfernt: ${entry.removed_reason}`
    : 'Dieser Beitrag wurde gelöscht.';
}

/**
 * Avatar, name, time, the edit and the bumps; "Antwort auf" where the card stands outside its thread.
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
export function authorLine(entry, opts) {
  const name = entry.username;
  return h(
    'header',
    { class: 'entry-head' },
    name
      ? h('a', { href: userHref(name), tabindex: '-1', 'aria-hidden': 'true' }, avatar(name, entry.avatar))
      : avatar('', ''),
    h(
      'div',
      { class: 'entry-meta' },
      name
        ? h('a', { class: 'author', href: userHref(name) }, name)
        : h('span', { class: 'author author-gone' }, 'gelöschtes Konto'),
      h('a', { class: 'entry-time', href: `/e/${entry.pid}` }, timeOf(entry.created_at)),
      entry.edited_at ? h('span', { class: 'entry-edited' }, 'bearbeitet ', timeOf(entry.edited_at)) : null,
      entry.bump_count > 0 ? h('span', { class: 'badge' }, `${entry.bump_count}× hochgeholt`) : null,
      opts.replyContext && entry.reply_to
        ? h(
            'span',
            { class: 'entry-context' },
            'Antwort auf ',
            h('a', { href: `/e/${entry.reply_to}` }, `Beitrag #${entry.reply_to}`),
          )
        : null,
    ),
  );
}

/**
 * The text, the image (its author's description as alt, else who posted it) and the preview; a gone
 * entry's note instead.
 * @param {Api.Entry} entry
 * @param {RegExp | null} [mark]
 */
export function entryBody(entry, mark) {
  if (entry.deleted)
    return h(
      'div',
      { class: 'entry-body' },
      h(
        'p',
        { class: `entry-text deleted-note${entry.removed ? ' removed-note' : ''}` },
        marked(goneNote(entry), mark),
      ),
    );
  return h(
    'div',
    { class: 'entry-body' },
    entry.content ? entryText(entry.content, mark) : null,
    entry.filepath
      ? h(
          'a',
          { class: 'entry-image-link', href: `/static/media/${entry.filepath}` },
          h('img', {
            class: 'entry-image',
            src: `/static/media/${entry.filepath}`,
            alt: entry.alt || `Bild von ${entry.username || 'einem gelöschten Konto'}`,
            loading: 'lazy',
          }),
        )
      : null,
    entry.preview ? previewCard(entry.preview) : null,
  );
}

/**
 * Yes and no as counts; the browser turns them into buttons.
 * @param {{ yes: number, no: number }} tally
 */
function voteCounts(tally) {
  /**
   * @param {'yes' | 'no'} mode
   * @param {string} label
   */
  const count = (mode, label) =>
    h(
      'span',
      { class: `vote vote-${mode}` },
      h('span', { class: 'vote-icon', 'aria-hidden': 'true' }, mode === 'yes' ? '▲' : '▼'),
      ` ${label} `,
      h('span', { class: 'vote-count' }, tally[mode]),
    );
  return h(
    'span',
    { class: 'votes', role: 'group', 'aria-label': 'Abstimmung' },
    count('yes', 'Ja'),
    count('no', 'Nein'),
  );
}

/**
 * The link into the rest of the conversation below this entry (not on its own page).
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
export function repliesLink(entry, opts) {
  if (entry.reply_count === 0 || opts.onOwnPage) return null;
  return h(
    'a',
    { class: 'action replies-link', href: `/e/${entry.pid}` },
    entry.reply_count === 1 ? '1 Antwort ansehen' : `Alle ${entry.reply_count} Antworten`,
  );
}

/**
 * The card, drawn as `opts` say.
 * @param {Api.Entry} entry
 * @param {Tallies} tallies
 * @param {CardOptions} [opts]
 */
export function card(entry, tallies, opts = {}) {
  return h(
    'article',
    {
      class: `entry${opts.compact ? ' entry-compact' : ''}${entry.deleted ? ' entry-deleted' : ''}`,
      id: `e${entry.pid}`,
      'data-pid': entry.pid,
      'data-uid': entry.uid,
    },
    authorLine(entry, opts),
    entryBody(entry, opts.mark),
    opts.noActions
      ? null
      : h(
          'div',
          { class: 'entry-actions' },
          entry.deleted ? null : voteCounts(tallies.get(entry.pid) ?? { yes: 0, no: 0 }),
          repliesLink(entry, opts),
        ),
  );
}

/**
 * A card with the thread's newest reply under it, and the way to the replies in between when
 * there are some. The newest reply is a named group: a plain <div> has no role to carry a name.
 * @param {Api.EntryWithLatest} entry
 * @param {Tallies} tallies
 * @param {CardOptions} [opts]
 */
export function cardWithLatest(entry, tallies, opts = {}) {
  const first = card(entry, tallies, opts);
  if (!entry.latest) return first;
  const { entry: latest, skipped } = entry.latest;
  return h(
    'div',
    { class: 'thread-item' },
    first,
    h(
      'div',
      { class: 'latest', role: 'group', 'aria-label': 'Neueste Antwort' },
      skipped > 0
        ? h(
            'a',
            { class: 'skipped', href: `/e/${latest.reply_to}` },
            skipped === 1 ? '1 weitere Antwort dazwischen ansehen' : `${skipped} weitere Antworten dazwischen ansehen`,
          )
        : null,
      card(latest, tallies, { compact: true, mark: opts.mark }),
    ),
  );
}

/**
 * Every entry a list shows, the latest replies included: the pids whose tallies it needs.
 * @param {readonly Api.EntryWithLatest[]} entries
 */
export function shownPids(entries) {
  return entries.flatMap((entry) => (entry.latest ? [entry.pid, entry.latest.entry.pid] : [entry.pid]));
}
