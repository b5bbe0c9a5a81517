// The service worker (served at /sw.js, scope /): shows the board's Web Push notifications and
// opens the entry on a click (docs/API.md "Web Push"). The server sends the finished German text
// ({title, body, url, tag}, lib/push/message.ts), so this file holds no wording of its own. It
// caches nothing: pages and answers come from the server as without it.
/// <reference lib="webworker" />

const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** @typedef {{ title: string, body: string, url: string, tag: string }} PushPayload */

/**
 * The payload, or null for anything that is not one of the board's (a push service's test message).
 * @param {PushMessageData | null} data
 * @returns {PushPayload | null}
 */
function payloadOf(data) {
  try {
    const value = data?.json();
    return typeof value?.title === 'string' && typeof value.url === 'string' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The board's own address for `url`, or its front page: a notification never leads elsewhere.
 * @param {unknown} url
 */
function sameOriginUrl(url) {
  const target = new URL(typeof url === 'string' ? url : '/', worker.location.origin);
  return target.origin === worker.location.origin ? target.href : `${worker.location.origin}/`;
}

/**
 * Opens the entry: in a tab of the board that is already open (focused and navigated there), else in a new one.
 * @param {unknown} url
 */
async function openEntry(url) {
  const target = sameOriginUrl(url);
  const tabs = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const tab = tabs.find((client) => new URL(client.url).origin === worker.location.origin);
  if (tab) {
    const navigated = await tab.navigate(target).catch(() => null);
    await (navigated ?? tab).focus().catch(() => {});
    if (navigated) return;
  }
  await worker.clients.openWindow(target);
}

worker.addEventListener('install', () => {
  void worker.skipWaiting();
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('push', (event) => {
  const payload = payloadOf(event.data);
  if (!payload) return;
  event.waitUntil(
    worker.registration.showNotification(payload.title, {
      body: payload.body,
      tag: payload.tag,
      data: { url: payload.url },
    }),
  );
});

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openEntry(event.notification.data?.url));
});
