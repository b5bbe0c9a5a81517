// One entry as a card: author, time, text with links, image, link preview, and its actions.
import { h } from '../dom.js';
import { dateTime, isoTime, relativeTime, splitLinks } from '../format.js';
import { avatar } from './avatar.js';
import { composer } from './composer.js';
import { entryActions } from './entry-actions.js';

/** Links in user text: plain anchors, text only, no referrer value and no ranking credit. */
export const externalRel = 'nofollow noopener ugc';

/** A <time> that app.js keeps fresh ("vor 5 Minuten"); the exact time is in the tooltip. */
export function timeAgo(seconds) {
  return h('time', { datetime: isoTime(seconds), title: dateTime(seconds), 'data-ts': seconds }, relativeTime(seconds));
}

/**
 * The entry's text with every http(s) link as a plain anchor; never parsed as HTML. The link text
 * is isolated (<bdi>), so right-to-left text around it cannot turn it into another address.
 */
export function entryText(content) {
  return h('p', { class: 'entry-text' }, splitLinks(content).map((part) =>
    typeof part === 'string' ? part : h('a', { href: part.url, rel: externalRel, class: 'external' }, h('bdi', {}, part.url))));
}

/** The preview card of the first link: local thumbnail, title, site; the video site marked. */
export function previewCard(preview) {
  const video = preview.kind === 'youtube';
  return h('a', { class: `preview${video ? ' preview-video' : ''}`, href: preview.url, rel: externalRel },
    preview.thumb ? h('img', { class: 'preview-thumb', src: `/static/media/${preview.thumb}`, alt: '', loading: 'lazy' }) : null,
    h('span', { class: 'preview-text' },
      video ? h('span', { class: 'preview-badge' }, '▶ YouTube-Video') : null,
      h('span', { class: 'preview-title' }, preview.title),
      h('span', { class: 'preview-site' }, preview.site)));
}

function authorLine(entry, opts) {
  const name = entry.username;
  const who = name
    ? h('a', { class: 'author', href: `/u/${encodeURIComponent(name)}` }, name)
    : h('span', { class: 'author author-gone' }, 'gelöschtes Konto');
  return h('header', { class: 'entry-head' },
    name ? h('a', { href: `/u/${encodeURIComponent(name)}`, tabindex: '-1', 'aria-hidden': 'true' }, avatar(name, entry.avatar)) : avatar('', ''),
    h('div', { class: 'entry-meta' },
      who,
      h('a', { class: 'entry-time', href: `/e/${entry.pid}` }, timeAgo(entry.created_at)),
      entry.edited_at ? h('span', { class: 'entry-edited' }, 'bearbeitet ', timeAgo(entry.edited_at)) : null,
      entry.bump_count > 0 ? h('span', { class: 'badge' }, `${entry.bump_count}× hochgeholt`) : null,
      opts.replyContext && entry.reply_to ? h('span', { class: 'entry-context' }, 'Antwort auf ', h('a', { href: `/e/${entry.reply_to}` }, `Beitrag #${entry.reply_to}`)) : null));
}

/** The line a gone entry shows instead of its text: the moderation's public reason, or the author's deletion. */
export function goneNote(entry) {
  return entry.removed ? `Von der Moderation entfernt: ${entry.removed_reason}` : 'Dieser Beitrag wurde gelöscht.';
}

function entryBody(entry) {
  if (entry.deleted) return h('div', { class: 'entry-body' }, h('p', { class: `entry-text deleted-note${entry.removed ? ' removed-note' : ''}` }, goneNote(entry)));
  return h('div', { class: 'entry-body' },
    entry.content ? entryText(entry.content) : null,
    entry.filepath ? h('a', { class: 'entry-image-link', href: `/static/media/${entry.filepath}` },
      h('img', { class: 'entry-image', src: `/static/media/${entry.filepath}`, alt: `Bild im Beitrag von ${entry.username || 'einem gelöschten Konto'}`, loading: 'lazy' })) : null,
    entry.preview ? previewCard(entry.preview) : null);
}

/** The same entry as a tombstone: what a card turns into after a deletion or a removal. */
export function goneEntry(entry, removedReason) {
  const gone = { ...entry, deleted: 1, content: '', filepath: '', preview: undefined, edited_at: undefined };
  return removedReason === undefined ? gone : { ...gone, removed: 1, removed_reason: removedReason };
}

/**
 * The card. opts: compact (a latest reply or a list item), replyContext (profile: "Antwort auf"),
 * hideReply (the thread page has its own reply form), refresh() to redraw the page after a reply,
 * noActions (the moderation queue has its own buttons).
 */
export function entryCard(entry, opts = {}) {
  const card = h('article', { class: `entry${opts.compact ? ' entry-compact' : ''}${entry.deleted ? ' entry-deleted' : ''}`, id: `e${entry.pid}`, 'data-pid': entry.pid });
  let body = entryBody(entry);
  if (opts.noActions) {
    card.append(authorLine(entry, opts), body);
    return card;
  }
  const panel = h('div', { class: 'entry-panel' });
  let head = authorLine(entry, opts);
  const becomeTombstone = (gone) => {
    const tombstone = entryCard(gone, opts);
    tombstone.tabIndex = -1;
    card.replaceWith(tombstone);
    tombstone.focus();
  };
  const actions = entryActions(entry, {
    panel,
    hideReply: opts.hideReply,
    replyForm: () => composer({ replyTo: entry.pid, onPosted: () => opts.refresh?.() }),
    onEdited(content) {
      entry.content = content;
      entry.edited_at = Math.floor(Date.now() / 1000);
      delete entry.preview; // the server fetches the link's preview again
      const fresh = entryBody(entry);
      body.replaceWith(fresh);
      body = fresh;
      const freshHead = authorLine(entry, opts);
      head.replaceWith(freshHead);
      head = freshHead;
    },
    onDeleted: () => becomeTombstone(goneEntry(entry)),
    onRemoved: (reason) => becomeTombstone(goneEntry(entry, reason)),
  });
  card.append(head, body, actions, panel);
  return card;
}

/** A card with the thread's newest reply under it ("… N weitere" when some are in between). */
export function entryWithLatest(entry, opts = {}) {
  const card = entryCard(entry, opts);
  if (!entry.latest) return card;
  const { entry: latest, skipped } = entry.latest;
  return h('div', { class: 'thread-item' }, card,
    h('div', { class: 'latest', 'aria-label': 'Neueste Antwort' },
      skipped > 0 ? h('a', { class: 'skipped', href: `/e/${latest.reply_to}` }, `… ${skipped} weitere`) : null,
      entryCard(latest, { ...opts, compact: true })));
}
