// Who is logged in: GET /api/auth/whoami ({uid: 0} = logged out, never a 401 in the console), kept here for every view.
import * as api from './api.js';
import { announce } from './status.js';

let current = null;
const listeners = new Set();

/** The logged-in user {uid, username, created_at, last_login, avatar, role?}, or null. */
export function me() {
  return current;
}

/** Whether the user (by default the logged-in one) moderates: only the own info (whoami, /api/user/info) says so. */
export function isModerator(user = current) {
  return user?.role === 'moderator';
}

/** Asks the server again; uid 0 means logged out, failures keep the last known state. */
export async function refreshMe() {
  try {
    const user = await api.get('/api/auth/whoami');
    current = user.uid ? user : null;
  } finally {
    for (const listener of listeners) listener(current);
  }
  return current;
}

/** Sets the user after a local change (rename, avatar, logout, account deletion). */
export function setMe(user) {
  current = user;
  for (const listener of listeners) listener(current);
}

/** Calls `listener(user)` on every change. */
export function onMeChange(listener) {
  listeners.add(listener);
}

/** Ends the session on the server, then here. */
export async function logout() {
  await api.post('/api/auth/logout');
  setMe(null);
}

// Any request answered 401 auth.required: the session ended on the server (it expired, or a ban
// ended it), so the page stops showing a logged-in header and asks to log in again.
window.addEventListener(api.sessionEndedEvent, () => {
  if (!current) return;
  setMe(null);
  announce('Deine Anmeldung ist beendet. Bitte melde dich wieder an.', 'error');
});
