// Web Push on this device (docs/API.md "Web Push"): registers the service worker (/sw.js, scope /),
// asks the browser for a subscription with the board's key and hands it to the server, which ties
// it to this session. Only on the reader's click: a page never asks for permission by itself.
import * as api from './api.js';

/** Whether this browser can get pushes at all (service workers, the Push API and notifications). */
export function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** The worker's registration, registering it first when needed; resolves once it is active. */
export async function pushWorker() {
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  return navigator.serviceWorker.ready;
}

/** @param {string} text base64url */
function bytesOf(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * Turns pushes on for this device; throws an Error with a German message when the browser or its
 * push service says no.
 */
export async function subscribePush() {
  if ((await Notification.requestPermission()) !== 'granted')
    throw new Error(
      'Der Browser erlaubt dieser Seite keine Benachrichtigungen: Das lässt sich in seinen Einstellungen ändern.',
    );
  const registration = await pushWorker();
  /** @type {{ enabled: 0 | 1, public_key: string, subscribed: 0 | 1 }} */
  const { public_key: key } = await api.get('/api/user/push');
  let subscription;
  try {
    subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: bytesOf(key),
    });
  } catch {
    throw new Error('Der Push-Dienst des Browsers ist gerade nicht erreichbar. Bitte versuche es später noch einmal.');
  }
  const { endpoint = '', keys = {} } = subscription.toJSON();
  await api.post('/api/user/push', { endpoint, p256dh: keys.p256dh ?? '', auth: keys.auth ?? '' });
}

/** Turns pushes off for this device: on the server (the part that counts), then in the browser. */
export async function unsubscribePush() {
  await api.post('/api/user/push/delete');
  const registration = await navigator.serviceWorker.getRegistration('/');
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}
