// One entry as a card: author, time, text with links, image, link preview, and its actions. An
// entry of an account the reader muted is folded until asked for.
import { h } from '../dom.js';
import { dateTime, isoTime, relativeTime, splitLinks } from '../format.js';
import { isMuted } from '../session.js';
import { announce } from '../status.js';
import { watchTally } from '../votes.js';
import { avatar } from '../markup/avatar.js';
import { composer } from './composer.js';
import { entryActions } from './entry-actions.js';
import { muteChangeEvent, muteChangeText } from './mute-button.js';

/** @import { MuteChange } from './mute-button.js' */

/**
 * How a card is drawn. compact: a latest reply or a list item; replyContext: "Antwort auf" (the
 * profile); hideReply: the thread page has its own reply form; refresh(): redraws the page after a
 * reply; noActions: the moderation queue has its own buttons; neverFold: the profile (whoever opens
 * it wants to read that account); unfolded: a muted entry the reader asked to see.
 * @typedef {{ compact?: boolean, replyContext?: boolean, hideReply?: boolean, refresh?: () => void,
 *   noActions?: boolean, neverFold?: boolean, unfolded?: boolean }} CardOptions
 */

/** Links in user text: plain anchors, text only, no referrer value and no ranking credit. */
export const externalRel = 'nofollow noopener ugc';

/**
 * A <time> that app.js keeps fresh ("vor 5 Minuten"); the exact time is in the tooltip.
 * @param {number} seconds
 */
export function timeAgo(seconds) {
  return h('time', { datetime: isoTime(seconds), title: dateTime(seconds), 'data-ts': seconds }, relativeTime(seconds));
}

/**
 * The entry's text with every http(s) link as a plain anchor; never parsed as HTML. The link text
 * is isolated (<bdi>), so right-to-left text around it cannot turn it into another address.
 * @param {string} content
 */
export function entryText(content) {
  return h(
    'p',
    { class: 'entry-text' },
    splitLinks(content).map((part) =>
      typeof part === 'string'
        ? part
        : h('a', { href: part.url, rel: externalRel, class: 'external' }, h('bdi', {}, part.url)),
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
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
function authorLine(entry, opts) {
  const name = entry.username;
  const who = name
    ? h('a', { class: 'author', href: `/u/${encodeURIComponent(name)}` }, name)
    : h('span', { class: 'author author-gone' }, 'gelöschtes Konto');
  return h(
    'header',
    { class: 'entry-head' },
    name
      ? h(
          'a',
          { href: `/u/${encodeURIComponent(name)}`, tabindex: '-1', 'aria-hidden': 'true' },
          avatar(name, entry.avatar),
        )
      : avatar('', ''),
    h(
      'div',
      { class: 'entry-meta' },
      who,
      h('a', { class: 'entry-time', href: `/e/${entry.pid}` }, timeAgo(entry.created_at)),
      entry.edited_at ? h('span', { class: 'entry-edited' }, 'bearbeitet ', timeAgo(entry.edited_at)) : null,
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
 * The line a gone entry shows instead of its text: the moderation's public reason, or the author's deletion.
 * @param {Api.Entry} entry
 */
export function goneNote(entry) {
  return entry.removed ? `Von der Moderation entfernt: ${entry.removed_reason}` : 'Dieser Beitrag wurde gelöscht.';
}

/**
 * The author's description of the image (docs/API.md "Entry": `alt`), else who posted it.
 * @param {Api.Entry} entry
 */
function imageAlt(entry) {
  return entry.alt || `Bild von ${entry.username || 'einem gelöschten Konto'}`;
}

/** @param {Api.Entry} entry */
function entryBody(entry) {
  if (entry.deleted)
    return h(
      'div',
      { class: 'entry-body' },
      h('p', { class: `entry-text deleted-note${entry.removed ? ' removed-note' : ''}` }, goneNote(entry)),
    );
  return h(
    'div',
    { class: 'entry-body' },
    entry.content ? entryText(entry.content) : null,
    entry.filepath
      ? h(
          'a',
          { class: 'entry-image-link', href: `/static/media/${entry.filepath}` },
          h('img', {
            class: 'entry-image',
            src: `/static/media/${entry.filepath}`,
            alt: imageAlt(entry),
            loading: 'lazy',
          }),
        )
      : null,
    entry.preview ? previewCard(entry.preview) : null,
  );
}

/**
 * The same entry as a tombstone: what a card turns into after a deletion or a removal.
 * @param {Api.Entry} entry
 * @param {string} [removedReason] only for a removal by the moderation
 * @returns {Api.Entry}
 */
export function goneEntry(entry, removedReason) {
  /** @type {Api.Entry} */
  const gone = {
    ...entry,
    deleted: 1,
    content: '',
    filepath: '',
    preview: undefined,
    alt: undefined,
    edited_at: undefined,
  };
  return removedReason === undefined ? gone : { ...gone, removed: 1, removed_reason: removedReason };
}

/**
 * What each card on the page was drawn from, so a mute can draw it again.
 * @type {WeakMap<Element, { entry: Api.Entry, opts: CardOptions }>}
 */
const drawnFrom = new WeakMap();

/**
 * @param {Api.Entry} entry
 * @param {string} className
 */
function cardShell(entry, className) {
  return h('article', {
    class: `entry ${className}`,
    id: `e${entry.pid}`,
    'data-pid': entry.pid,
    'data-uid': entry.uid,
  });
}

/**
 * The folded card of a muted account's entry; "anzeigen" unfolds it in place.
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
function mutedCard(entry, opts) {
  const show = h('button', { type: 'button', class: 'link-button' }, 'anzeigen');
  const card = cardShell(entry, 'entry-muted');
  card.append(
    h('p', { class: 'muted-note' }, 'Beitrag eines stummgeschalteten Kontos — ', show),
    h('p', { class: 'local-status' }),
  );
  watchTally(entry.pid, () => {}); // the tally is loaded with the page's, ready for unfolding
  show.addEventListener('click', () => {
    const full = entryCard(entry, { ...opts, unfolded: true });
    card.replaceWith(full);
    full.tabIndex = -1;
    full.focus();
  });
  return card;
}

/**
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
function fullCard(entry, opts) {
  const card = cardShell(entry, `${opts.compact ? ' entry-compact' : ''}${entry.deleted ? ' entry-deleted' : ''}`);
  let body = entryBody(entry);
  if (opts.noActions) {
    card.append(authorLine(entry, opts), body);
    return card;
  }
  const panel = h('div', { class: 'entry-panel' });
  let head = authorLine(entry, opts);
  /** @param {Api.Entry} gone */
  const becomeTombstone = (gone) => {
    const tombstone = entryCard(gone, opts);
    tombstone.tabIndex = -1;
    card.replaceWith(tombstone);
    tombstone.focus();
    return tombstone;
  };
  const actions = entryActions(entry, {
    panel,
    hideReply: opts.hideReply,
    replyForm: () => composer({ replyTo: entry.pid, onPosted: () => opts.refresh?.() }),
    onEdited(edited) {
      entry.content = edited.content;
      entry.alt = edited.alt;
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
  card.append(head, body, actions, h('p', { class: 'local-status' }), panel);
  return card;
}

/**
 * The card, drawn as `opts` say (CardOptions above).
 * @param {Api.Entry} entry
 * @param {CardOptions} [opts]
 * @returns {HTMLElement}
 */
export function entryCard(entry, opts = {}) {
  const fold = !entry.deleted && !opts.neverFold && !opts.unfolded && !opts.noActions && isMuted(entry.uid);
  const card = fold ? mutedCard(entry, opts) : fullCard(entry, opts);
  drawnFrom.set(card, { entry, opts });
  return card;
}

/**
 * After a mute or unmute every card of that account on the page is drawn again (folded or not);
 * the card whose menu was used keeps the focus and says what happened. app.js listens from its start.
 */
export function watchMuteChanges() {
  document.addEventListener(muteChangeEvent, (event) => {
    const change = /** @type {CustomEvent<MuteChange>} */ (event).detail;
    const focused = document.activeElement;
    /** @type {HTMLElement | null} */
    let focusCard = null;
    for (const old of document.querySelectorAll(`#main article.entry[data-uid="${change.uid}"]`)) {
      const drawn = drawnFrom.get(old);
      if (!drawn) continue;
      const fresh = entryCard(drawn.entry, { ...drawn.opts, unfolded: false });
      old.replaceWith(fresh);
      if (old.contains(focused)) focusCard = fresh;
    }
    if (!focusCard) return;
    focusCard.tabIndex = -1;
    focusCard.focus();
    announce(muteChangeText(change), 'info', focusCard);
  });
}

/**
 * A card with the thread's newest reply under it, and the way to the replies in between when
 * there are some. The newest reply is a named group: a plain <div> has no role to carry a name.
 * @param {Api.EntryWithLatest} entry
 * @param {CardOptions} [opts]
 */
export function entryWithLatest(entry, opts = {}) {
  const card = entryCard(entry, opts);
  if (!entry.latest) return card;
  const { entry: latest, skipped } = entry.latest;
  return h(
    'div',
    { class: 'thread-item' },
    card,
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
      entryCard(latest, { ...opts, compact: true }),
    ),
  );
}
