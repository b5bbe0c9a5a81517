// What the reader follows (docs/API.md "Following threads"): the followed pids, loaded once per
// page load and account for the entries' menus ("Folgen" / "Nicht mehr folgen").
import * as api from './api.js';

/** @typedef {{ own_threads: 0 | 1, pids: number[] }} FollowState */

/** @type {{ uid: number, state: Promise<FollowState> } | null} */
let loaded = null;

/**
 * The reader's follow state, asked once per account and page load; without it nothing shows as followed.
 * @param {number} uid
 * @returns {Promise<FollowState>}
 */
export function followState(uid) {
  if (!loaded || loaded.uid !== uid) {
    loaded = {
      uid,
      state: api.get('/api/user/following/state').catch(() => ({ own_threads: 1, pids: [] })),
    };
  }
  return loaded.state;
}

/**
 * Follows or unfollows an entry and remembers it for this page.
 * @param {number} uid the reader
 * @param {number} pid
 * @param {boolean} on
 */
export async function setFollowed(uid, pid, on) {
  await api.post(`/api/entry/${pid}/${on ? 'follow' : 'unfollow'}`);
  const state = await followState(uid);
  state.pids = on ? [...new Set([...state.pids, pid])] : state.pids.filter((p) => p !== pid);
}

/**
 * A new own thread is followed by default (when the setting says so): the menu shows it at once.
 * @param {number} uid
 * @param {number} pid
 */
export async function noteOwnThread(uid, pid) {
  const state = await followState(uid);
  if (state.own_threads && !state.pids.includes(pid)) state.pids = [...state.pids, pid];
}
