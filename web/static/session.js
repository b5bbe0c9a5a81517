// Who is logged in: GET /api/auth/whoami ({uid: 0} = logged out, never a 401 in the console), kept
// here for every view, with the accounts the reader muted.
import * as api from './api.js';
import { announce } from './status.js';

/** @type {Api.OwnUser | null} */
let current = null;
/** @type {Set<number>} */
let muted = new Set();
/** @type {Set<(user: Api.OwnUser | null) => void>} */
const listeners = new Set();

/**
 * The logged-in user {uid, username, created_at, last_login, avatar, role?}, or null.
 * @returns {Api.OwnUser | null}
 */
export function me() {
  return current;
}

/**
 * Whether the user (by default the logged-in one) moderates: only the own info (whoami, /api/user/info) says so.
 * @param {Api.OwnUser | null} [user]
 */
export function isModerator(user = current) {
  return user?.role === 'moderator';
}

/**
 * Whether the reader muted this account. Why in the browser: feed and thread answers are shared,
 * cached answers, the same for every reader (docs/API.md "POST /api/user/mute"), so the page folds
 * the muted accounts' entries itself.
 * @param {number} uid
 */
export function isMuted(uid) {
  return uid !== 0 && muted.has(uid);
}

async function loadMutes() {
  try {
    muted = new Set(/** @type {Api.MutedAccount[]} */ (await api.get('/api/user/mutes')).map((m) => m.uid));
  } catch {
    muted = new Set(); // without the list nothing is folded; the page itself still works
  }
}

/**
 * Mutes or unmutes an account (by name, as the API takes it) and remembers it for this page.
 * @param {Api.MutedAccount} account
 * @param {boolean} on
 */
export async function setMuted(account, on) {
  await api.post(on ? '/api/user/mute' : '/api/user/unmute', { user: account.username });
  if (on) muted.add(account.uid);
  else muted.delete(account.uid);
}

function changed() {
  if (!current) muted = new Set();
  for (const listener of listeners) listener(current);
}

/** Asks the server again; uid 0 means logged out, failures keep the last known state. */
export async function refreshMe() {
  try {
    /** @type {Api.OwnUser | { uid: 0 }} */
    const user = await api.get('/api/auth/whoami');
    current = user.uid ? /** @type {Api.OwnUser} */ (user) : null;
    if (current) await loadMutes();
  } finally {
    changed();
  }
  return current;
}

/**
 * Sets the user after a local change (rename, avatar, logout, account deletion).
 * @param {Api.OwnUser | null} user
 */
export function setMe(user) {
  current = user;
  changed();
}

/**
 * Calls `listener(user)` on every change.
 * @param {(user: Api.OwnUser | null) => void} listener
 */
export function onMeChange(listener) {
  listeners.add(listener);
}

/** Ends the session on the server, then here. */
export async function logout() {
  await api.post('/api/auth/logout');
  setMe(null);
}

/**
 * Any request answered 401 auth.required: the session ended on the server (it expired, or a ban
 * ended it), so the page stops showing a logged-in header and asks to log in again. app.js
 * listens from its start; importing this file changes nothing.
 */
export function watchSessionEnd() {
  window.addEventListener(api.sessionEndedEvent, () => {
    if (!current) return;
    setMe(null);
    announce('Deine Anmeldung ist beendet. Bitte melde dich wieder an.', 'error');
  });
}
