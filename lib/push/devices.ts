import { ECDH } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { checkTarget, createAddressPolicy, parseIp, PreviewBlockedError } from '../outgoing/guard.ts';
import { inCidr, parseCidr } from '../ip/ranges.ts';
import { maxEndpointLength, maxPushDevices } from '../product.ts';

/**
 * Push devices (docs/API.md "Web Push"): one browser subscription per session, so the session
 * list shows which devices get pushes and ending a session (logout, revoke, a password change, its
 * expiry) stops them. The keys are the browser's, used only to encrypt what is sent to it.
 */

export interface PushSubscriptionInput {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type SubscriptionProblem = 'endpoint' | 'p256dh' | 'auth';

/**
 * What is wrong with a subscription, or undefined: the endpoint must be https on an allowed port,
 * without credentials, and not an IP literal the preview guard refuses (plain http only inside
 * BOARD_PREVIEW_ALLOW). Its DNS answers are checked at every send (lib/push/send.ts).
 */
export function subscriptionProblem(
  input: PushSubscriptionInput,
  guard: { allow: readonly string[]; ports: readonly number[] },
): SubscriptionProblem | undefined {
  if (!endpointAllowed(input.endpoint, guard)) return 'endpoint';
  const key = base64url(input.p256dh);
  if (key?.length !== 65 || !isP256Point(key)) return 'p256dh';
  if (base64url(input.auth)?.length !== 16) return 'auth';
  return undefined;
}

function endpointAllowed(endpoint: string, guard: { allow: readonly string[]; ports: readonly number[] }): boolean {
  if (endpoint.length > maxEndpointLength || !URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  if (url.protocol === 'http:' && !inAllowList(url.hostname, guard.allow)) return false;
  try {
    checkTarget(url, guard.ports, createAddressPolicy(guard.allow));
    return true;
  } catch (err) {
    if (err instanceof PreviewBlockedError) return false;
    throw err;
  }
}

function inAllowList(hostname: string, allow: readonly string[]): boolean {
  const ip = parseIp(hostname.replace(/^\[|\]$/g, ''));
  return ip !== undefined && allow.some((text) => inCidr(ip, parseCidr(text)!));
}

function base64url(text: string): Buffer | undefined {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64url') : undefined;
}

function isP256Point(key: Buffer): boolean {
  try {
    ECDH.convertKey(key, 'prime256v1');
    return key[0] === 4;
  } catch {
    return false;
  }
}

export type SaveOutcome = 'saved' | 'full';

export function savePushDevice(
  db: Db,
  device: PushSubscriptionInput & { sessionId: string; uid: number },
  now: number,
): SaveOutcome {
  return db.tx(() => {
    const others = db.one<{ n: number }>(
      'SELECT count(*) AS n FROM push_devices WHERE uid = ? AND session_id <> ?',
      device.uid,
      device.sessionId,
    )!.n;
    if (others >= maxPushDevices) return 'full';
    // A new subscription of the session replaces its old one, and the pushes queued for that.
    db.run('DELETE FROM push_devices WHERE session_id = ?', device.sessionId);
    db.run(
      'INSERT INTO push_devices (session_id, uid, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      device.sessionId,
      device.uid,
      device.endpoint,
      device.p256dh,
      device.auth,
      now,
    );
    return 'saved';
  });
}

export function deletePushDevice(db: Db, uid: number, sessionId: string): boolean {
  return db.run('DELETE FROM push_devices WHERE uid = ? AND session_id = ?', uid, sessionId).changes === 1;
}

export function dropPushDevice(db: Db, sessionId: string): void {
  db.run('DELETE FROM push_devices WHERE session_id = ?', sessionId);
}

export interface PushDeviceInfo {
  session_id: string;
  service: string;
  created_at: number;
}

/** The account's push devices as its owner sees them (the session list, the data export): never the keys or the full endpoint. */
export function listPushDevices(db: Db, uid: number): PushDeviceInfo[] {
  return db
    .all<{ session_id: string; endpoint: string; created_at: number }>(
      'SELECT session_id, endpoint, created_at FROM push_devices WHERE uid = ? ORDER BY created_at, session_id',
      uid,
    )
    .map(({ endpoint, ...device }) => ({ ...device, service: new URL(endpoint).origin }));
}
