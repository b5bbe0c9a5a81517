import type { IncomingMessage } from 'node:http';

/**
 * CSRF guard (docs/API.md "CSRF"): a request with an Origin header must come from the board itself:
 * the configured BOARD_ORIGIN, or the same host as the request (the scheme may differ behind
 * a TLS proxy). `null` and unparsable origins are foreign. No Origin (curl) is allowed.
 */
export function isForeignOrigin(req: IncomingMessage, trustedOrigin: string): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (origin === trustedOrigin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  return !host || host !== req.headers.host?.toLowerCase();
}
