// An entry's card as the browser has it: the drawn card (markup/entry.js, the server's too) with
// its actions, relative times, and folded when the reader muted its author.
import { h } from '../dom.js';
import { relativeTime } from '../format.js';
import { authorLine, card, entryBody, timeOf } from '../markup/entry.js';
import { isMuted } from '../session.js';
import { announce } from '../status.js';
import { knownTallies, watchTally } from '../votes.js';
import { composer } from './composer.js';
import { entryActions } from './entry-actions.js';
import { muteChangeEvent, muteChangeText } from './mute-button.js';

/** @import { MuteChange } from './mute-button.js' */
/** @import { CardOptions as DrawnOptions } from '../markup/entry.js' */

/**
 * How a card is drawn (markup/entry.js) and what the browser adds. refresh(): redraws the page after
 * a reply; neverFold: the profile (whoever opens it wants to read that account); unfolded: a muted
 * entry the reader asked to see.
 * @typedef {DrawnOptions & { refresh?: () => void, neverFold?: boolean, unfolded?: boolean }} CardOptions
 */

/**
 * The times under `root` as "vor 5 Minuten" (the drawn date stays in the tooltip); app.js keeps them fresh.
 * @param {ParentNode} root
 */
export function showRelativeTimes(root) {
  for (const time of /** @type {NodeListOf<HTMLTimeElement>} */ (root.querySelectorAll('time[data-ts]')))
    time.textContent = relativeTime(Number(time.dataset.ts));
}

/**
 * A <time> that says how long ago, for the views the server does not draw.
 * @param {number} seconds
 */
export function timeAgo(seconds) {
  const time = timeOf(seconds);
  time.textContent = relativeTime(seconds);
  return time;
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
 * The folded card of a muted account's entry; "anzeigen" unfolds it in place.
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
function mutedCard(entry, opts) {
  const show = h('button', { type: 'button', class: 'link-button' }, 'anzeigen');
  const folded = h(
    'article',
    { class: 'entry entry-muted', id: `e${entry.pid}`, 'data-pid': entry.pid, 'data-uid': entry.uid },
    h('p', { class: 'muted-note' }, 'Beitrag eines stummgeschalteten Kontos — ', show),
    h('p', { class: 'local-status' }),
  );
  watchTally(entry.pid, () => {}); // the tally is loaded with the page's, ready for unfolding
  show.addEventListener('click', () => {
    const full = entryCard(entry, { ...opts, unfolded: true });
    folded.replaceWith(full);
    full.tabIndex = -1;
    full.focus();
  });
  return folded;
}

/**
 * The drawn card's row of counts becomes the actions; a message line and the panel for its forms follow.
 * @param {HTMLElement} drawn
 * @param {Api.Entry} entry
 * @param {CardOptions} opts
 */
function addActions(drawn, entry, opts) {
  const panel = h('div', { class: 'entry-panel' });
  /** @param {Api.Entry} gone */
  const becomeTombstone = (gone) => {
    const tombstone = entryCard(gone, opts);
    tombstone.tabIndex = -1;
    drawn.replaceWith(tombstone);
    tombstone.focus();
    return tombstone;
  };
  const actions = entryActions(entry, {
    panel,
    onOwnPage: opts.onOwnPage,
    replyForm: () => composer({ replyTo: entry.pid, onPosted: () => opts.refresh?.() }),
    onEdited(edited) {
      entry.content = edited.content;
      entry.alt = edited.alt;
      entry.edited_at = Math.floor(Date.now() / 1000);
      delete entry.preview; // the server fetches the link's preview again
      const head = authorLine(entry, opts);
      showRelativeTimes(head);
      drawn.querySelector(':scope > .entry-head')?.replaceWith(head);
      drawn.querySelector(':scope > .entry-body')?.replaceWith(entryBody(entry, opts.mark));
    },
    onDeleted: () => becomeTombstone(goneEntry(entry)),
    onRemoved: (reason) => becomeTombstone(goneEntry(entry, reason)),
  });
  drawn.querySelector(':scope > .entry-actions')?.replaceWith(actions);
  drawn.append(h('p', { class: 'local-status' }), panel);
}

/**
 * Makes a drawn card (the server's or the browser's) the reader's: its actions and relative times,
 * or folded when the reader muted its author. Returns the card that stands in the page now.
 * @param {HTMLElement} drawn
 * @param {Api.Entry} entry
 * @param {CardOptions} [opts]
 * @returns {HTMLElement}
 */
export function enhanceCard(drawn, entry, opts = {}) {
  const fold = !entry.deleted && !opts.neverFold && !opts.unfolded && !opts.noActions && isMuted(entry.uid);
  const shown = fold ? mutedCard(entry, opts) : drawn;
  if (fold) drawn.replaceWith(shown);
  else if (!opts.noActions) addActions(drawn, entry, opts);
  showRelativeTimes(shown);
  drawnFrom.set(shown, { entry, opts });
  return shown;
}

/**
 * Every card drawn in `root` from `entries` (their latest replies too) enhanced with `opts`; a
 * latest reply stays compact.
 * @param {ParentNode} root
 * @param {readonly Api.EntryWithLatest[]} entries
 * @param {CardOptions} opts
 */
export function enhanceCards(root, entries, opts) {
  /** @type {Map<number, Api.Entry>} */
  const byPid = new Map();
  for (const entry of entries) {
    byPid.set(entry.pid, entry);
    if (entry.latest) byPid.set(entry.latest.entry.pid, entry.latest.entry);
  }
  for (const drawn of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('article.entry[data-pid]'))) {
    const entry = byPid.get(Number(drawn.dataset.pid));
    if (entry) enhanceCard(drawn, entry, { ...opts, compact: drawn.classList.contains('entry-compact') });
  }
}

/**
 * The card drawn here and enhanced (CardOptions above).
 * @param {Api.Entry} entry
 * @param {CardOptions} [opts]
 * @returns {HTMLElement}
 */
export function entryCard(entry, opts = {}) {
  return enhanceCard(card(entry, knownTallies(), opts), entry, opts);
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
