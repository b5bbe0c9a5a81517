// Passkeys in the browser (docs/API.md "Passkeys"): the board's options go to navigator.credentials
// through @simplewebauthn/browser, served from the board's own origin and loaded only when a
// passkey is used; the answers go back as form fields.
import * as api from './api.js';

/** @typedef {typeof import('@simplewebauthn/browser')} WebAuthnBrowser */

/** Where lib/pages/files.ts serves the library's ES modules (no third-party origin: CSP `default-src 'self'`). */
const libraryPath = '/static/vendor/simplewebauthn/index.js';

/** @returns {Promise<WebAuthnBrowser>} */
function library() {
  return import(libraryPath);
}

/** Whether this browser can use passkeys at all. */
export function passkeysSupported() {
  return typeof window.PublicKeyCredential === 'function';
}

/**
 * The browser's refusal as an error the forms show like the server's: the person cancelled, the
 * prompt timed out, or the authenticator has no passkey for this board.
 * @param {unknown} err
 */
function browserError(err) {
  const name = err instanceof Error ? err.name : '';
  const message =
    name === 'InvalidStateError'
      ? 'Auf diesem Gerät ist schon ein Passkey für dein Konto eingerichtet.'
      : 'Der Passkey wurde nicht bestätigt: abgebrochen, abgelaufen, oder auf diesem Gerät ist keiner für dieses Board.';
  return new api.ApiError(400, { error: { code: 'passkey.browser', message } });
}

/**
 * A passkey's signature over a fresh sign-in challenge, as the `credential` or `passkey` field carries it.
 * @returns {Promise<string>}
 */
export async function passkeySignature() {
  const [{ startAuthentication }, optionsJSON] = await Promise.all([library(), api.post('/api/auth/passkey/options')]);
  try {
    return JSON.stringify(await startAuthentication({ optionsJSON }));
  } catch (err) {
    throw browserError(err);
  }
}

/**
 * Signs in with any passkey of this board the authenticator holds: no name typed.
 * @param {string} timeout seconds, as the login form's duration
 */
export async function signInWithPasskey(timeout) {
  const credential = await passkeySignature();
  await api.post('/api/auth/passkey/login', { credential, timeout });
}

/**
 * Registers a new passkey: the confirmation (`pass1` or `passkey`) first, then the authenticator makes it.
 * @param {string} name
 * @param {Record<string, string>} confirmation
 * @returns {Promise<PasskeyItem>}
 */
export async function addPasskey(name, confirmation) {
  const [{ startRegistration }, optionsJSON] = await Promise.all([
    library(),
    api.post('/api/user/passkeys/options', confirmation),
  ]);
  let response;
  try {
    response = await startRegistration({ optionsJSON });
  } catch (err) {
    throw browserError(err);
  }
  return api.post('/api/user/passkeys', { name, credential: JSON.stringify(response) });
}

/**
 * One passkey as GET /api/user/passkeys lists it.
 * @typedef {{ id: string, name: string, created_at: number, last_used: number, synced: 0 | 1, backed_up: 0 | 1 }} PasskeyItem
 */
