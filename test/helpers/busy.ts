import type { Page, Route } from 'playwright-core';

/** The board's own 503 when its hashing line is full (docs/API.md "POST /api/auth/login"). */
const busyBody = JSON.stringify({
  error: {
    code: 'auth.busy',
    message: 'Der Server ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
  },
});

/**
 * Answers the page's requests to `url` with 503 auth.busy (Retry-After `retryAfter`) the first
 * `busy` times, then lets the real board answer; keeps each request's form body.
 */
export async function busyFirst(page: Page, url: string, busy: number, retryAfter: string) {
  const bodies: URLSearchParams[] = [];
  await page.route(url, (route: Route) => {
    bodies.push(new URLSearchParams(route.request().postData() ?? ''));
    if (bodies.length > busy) return route.continue();
    return route.fulfill({
      status: 503,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': retryAfter },
      body: busyBody,
    });
  });
  return bodies;
}
