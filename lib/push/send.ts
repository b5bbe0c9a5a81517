import type { Agent } from 'undici';
import { guardedLookup, loadUndici, type Resolver } from '../outgoing/client.ts';
import { createDnsResolver } from '../outgoing/dns.ts';
import { checkTarget, createAddressPolicy, PreviewBlockedError } from '../outgoing/guard.ts';
import { vapidSubject, type VapidKeys } from './keys.ts';

/**
 * One Web Push request (RFC 8030): web-push encrypts the payload for the browser's keys and signs
 * the VAPID header, and the request goes through the link preview's guard. Why the guard: an
 * endpoint is a URL a client chose, so without it a subscription could make the server POST to
 * itself, the local network or a cloud metadata service. Redirects are not followed.
 */

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * delivered: the service took it; gone: 404/410, the subscription ended; blocked: the guard refused
 * the endpoint; unavailable: a passing failure worth another try (429, a 5xx, no connection or
 * answer in time); failed: anything else, which another try would not change.
 */
export type PushResult = 'delivered' | 'gone' | 'blocked' | 'unavailable' | 'failed';

export interface PushAnswer {
  result: PushResult;
  detail: string;
  retryAfter?: string;
}

export interface PushSenderOptions {
  allow: readonly string[];
  ports: readonly number[];
  origin: string;
  timeoutMs?: number;
  resolve?: Resolver;
}

export interface PushSender {
  send(target: PushTarget, payload: string, keys: VapidKeys, signal?: AbortSignal): Promise<PushAnswer>;
  close(): Promise<void>;
}

type WebPush = typeof import('web-push');
let webPushLoaded: Promise<WebPush> | undefined;
const loadWebPush = (): Promise<WebPush> => (webPushLoaded ??= import('web-push').then((module) => module.default));

/** How long a push service keeps an undelivered message for an offline device: a day, then it is stale news. */
export const pushTtlSeconds = 86_400;

export function createPushSender(options: PushSenderOptions): PushSender {
  const policy = createAddressPolicy(options.allow);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lookup = guardedLookup(policy, options.resolve ?? createDnsResolver());
  let agent: Agent | undefined;
  const subject = vapidSubject(options.origin);

  async function send(target: PushTarget, payload: string, keys: VapidKeys, signal?: AbortSignal): Promise<PushAnswer> {
    const url = new URL(target.endpoint);
    try {
      checkTarget(url, options.ports, policy);
    } catch (err) {
      return { result: 'blocked' as const, detail: (err as Error).message };
    }
    const webPush = await loadWebPush();
    const request = webPush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      payload,
      {
        vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: pushTtlSeconds,
        contentEncoding: 'aes128gcm',
      },
    );
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    delete headers['Content-Length'];
    const undici = await loadUndici();
    agent ??= new undici.Agent({ connect: { lookup, timeout: timeoutMs }, connections: 4 });
    try {
      const res = await undici.fetch(url, {
        method: 'POST',
        dispatcher: agent,
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
        headers,
        body: request.body ?? undefined,
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) return { result: 'delivered' as const, detail: String(res.status) };
      if (res.status === 404 || res.status === 410) return { result: 'gone' as const, detail: String(res.status) };
      const detail = `answered ${res.status}`;
      if (res.status === 429 || res.status >= 500)
        return { result: 'unavailable' as const, detail, retryAfter: res.headers.get('retry-after') ?? undefined };
      return { result: 'failed' as const, detail };
    } catch (err) {
      for (let cause: unknown = err; cause instanceof Error; cause = cause.cause)
        if (cause instanceof PreviewBlockedError) return { result: 'blocked' as const, detail: cause.message };
      const name = (err as Error).name;
      const detail = name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err as Error).message;
      return { result: 'unavailable' as const, detail };
    }
  }

  return {
    send,
    async close() {
      await agent?.destroy();
    },
  };
}

export function retryAfterSeconds(header: string | undefined, now: number): number | undefined {
  const text = header?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date as senders must write it (IMF-fixdate): "Fri, 27 Nov 2026 18:02:00 GMT".
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil(date / 1000 - now));
}
