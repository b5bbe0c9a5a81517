// Vote tallies: fetched for a whole page at once (GET /api/entry/votes?pids=…) and shown on
// every card of that entry (an entry can appear twice, e.g. as a reply and as its parent's latest).
import * as api from './api.js';
import { maxBulkPids } from './limits.js';

/** @type {Map<number, Set<(tally: Api.VoteTally) => void>>} */
const shown = new Map();
/** @type {Map<number, Api.VoteTally>} */
const known = new Map();

/**
 * Registers a card's vote buttons; `update(tally)` is called with every new tally, at once when the
 * page knows it already (a card drawn again, e.g. a muted entry unfolded).
 * @param {number} pid
 * @param {(tally: Api.VoteTally) => void} update
 */
export function watchTally(pid, update) {
  let updates = shown.get(pid);
  if (!updates) shown.set(pid, (updates = new Set()));
  updates.add(update);
  const tally = known.get(pid);
  if (tally) update(tally);
}

/** Forgets all cards (a new page is being drawn). */
export function forgetTallies() {
  shown.clear();
  known.clear();
}

/**
 * Hands a tally to every card of its entry.
 * @param {Api.VoteTally} tally
 */
export function showTally(tally) {
  known.set(tally.pid, tally);
  for (const update of shown.get(tally.pid) ?? []) update(tally);
}

/** The tallies the page knows, by pid: what a card drawn now shows (markup/entry.js). */
export function knownTallies() {
  return /** @type {ReadonlyMap<number, Api.VoteTally>} */ (known);
}

/**
 * Loads the tallies of `pids`, as many per request as the server takes, and hands each to the cards
 * that show its entry; the page knows them from then on.
 * @param {readonly number[]} pids
 */
export async function loadTallies(pids) {
  for (let i = 0; i < pids.length; i += maxBulkPids) {
    /** @type {Api.VoteTally[]} */
    const tallies = await api.get(`/api/entry/votes?pids=${pids.slice(i, i + maxBulkPids).join(',')}`);
    for (const tally of tallies) showTally(tally);
  }
  return knownTallies();
}

/** Loads the tallies of every registered entry the page does not know yet. */
export async function loadShownTallies() {
  await loadTallies([...shown.keys()].filter((pid) => !known.has(pid)));
}
