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

/** Loads the tallies of every registered entry, as many per request as the server takes. */
export async function loadShownTallies() {
  const pids = [...shown.keys()];
  for (let i = 0; i < pids.length; i += maxBulkPids) {
    /** @type {Api.VoteTally[]} */
    const tallies = await api.get(`/api/entry/votes?pids=${pids.slice(i, i + maxBulkPids).join(',')}`);
    for (const tally of tallies) showTally(tally);
  }
}
