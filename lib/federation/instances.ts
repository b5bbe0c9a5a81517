import type { FederationMode } from '../config.ts';
import type { Db } from '../db/db.ts';
import { writeModlog, type ActorUid } from '../modlog/modlog.ts';
import { hideEntriesOf, showEntriesOf } from './instance-entries.ts';

/**
 * The operator's and the moderators' say over other servers (docs/OPERATIONS.md "Federation"). An
 * instance is its host as its URLs write it: lower case, with the port when it is not the
 * scheme's default (`social.example`, `127.0.0.1:8443`), which is what `new URL(…).host` gives.
 */

export type InstanceState = 'allowed' | 'blocked';
export type InstanceAction = 'allow' | 'block' | 'unblock';
export const instanceActions: readonly InstanceAction[] = ['allow', 'block', 'unblock'];

/** Longest host name DNS allows (253) and a port: longer is no instance. */
const maxInstanceLength = 260;

/**
 * The instance a moderator or the operator typed (`social.example`, `https://Social.Example/`,
 * `127.0.0.1:8443`), or undefined when it is none: a path, credentials or a query make it a URL
 * of something else, not an instance.
 */
export function instanceNamed(text: string): string | undefined {
  const raw = text.trim();
  if (!raw || raw.length > maxInstanceLength) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return undefined;
  if (!url.hostname || !/^[a-z0-9.[\]:-]+$/.test(url.host)) return undefined;
  return url.host;
}

export function instanceOf(url: string | URL): string {
  return new URL(url).host;
}

/**
 * Whether the board talks to this instance at all: never when federation is off; with
 * `allowlist` only to instances allowed; with `open` to every instance not blocked. Every
 * incoming request and every delivery asks this, so a block takes effect at once.
 */
export function instanceAdmitted(db: Db, mode: FederationMode, host: string): boolean {
  if (mode === 'off') return false;
  const state = db.one<{ state: string }>('SELECT state FROM federation_instances WHERE host = ?', host)?.state;
  if (state === 'blocked') return false;
  return mode === 'open' || state === 'allowed';
}

/**
 * Allows, blocks or unblocks an instance, in the moderation log; false when nothing changed. A block
 * ends the follows from there, drops what waits to go there and hides its people's entries here
 * until an unblock or allow. Unblock forgets the decision (open: admitted; allowlist: not allowed).
 */
export function changeInstance(
  db: Db,
  host: string,
  action: InstanceAction,
  actor: ActorUid,
  now: number,
  note = '',
): boolean {
  return db.tx(() => {
    const before =
      db.one<{ state: string }>('SELECT state FROM federation_instances WHERE host = ?', host)?.state ?? '';
    const after = action === 'allow' ? 'allowed' : action === 'block' ? 'blocked' : '';
    if (before === after || (action === 'unblock' && before !== 'blocked')) return false;
    db.run(
      `INSERT INTO federation_instances (host, state, changed_at) VALUES (?, ?, ?)
       ON CONFLICT (host) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at`,
      host,
      after,
      now,
    );
    if (action === 'block') {
      db.run('DELETE FROM federation_followers WHERE host = ?', host);
      db.run('DELETE FROM federation_deliveries WHERE host = ?', host);
      hideEntriesOf(db, host, now);
    } else if (before === 'blocked') showEntriesOf(db, host, now);
    writeModlog(db, actor, { action: `instance_${action}`, reason: note ? `${host}: ${note}` : host }, now);
    return true;
  });
}

export interface InstanceRow {
  host: string;
  state: InstanceState | '';
  changed_at: number;
  followers: number;
  queued: number;
  delivered: number;
  failed: number;
  last_delivered: number;
}

/** Most instances a list shows: the ones with a decision or followers first, the busiest first. */
export const maxInstancesListed = 500;

export function listInstances(db: Db): InstanceRow[] {
  return db.all<InstanceRow>(
    `WITH hosts AS (
       SELECT host FROM federation_instances
       UNION SELECT host FROM federation_followers
       UNION SELECT host FROM federation_deliveries)
     SELECT h.host, coalesce(i.state, '') AS state, coalesce(i.changed_at, 0) AS changed_at,
            (SELECT count(*) FROM federation_followers f WHERE f.host = h.host) AS followers,
            (SELECT count(*) FROM federation_deliveries d WHERE d.host = h.host) AS queued,
            coalesce(i.delivered, 0) AS delivered, coalesce(i.failed, 0) AS failed,
            coalesce(i.last_delivered, 0) AS last_delivered
     FROM hosts h LEFT JOIN federation_instances i ON i.host = h.host
     WHERE coalesce(i.state, '') != '' OR followers > 0 OR queued > 0 OR delivered > 0 OR failed > 0
     ORDER BY coalesce(i.state, '') = '', followers DESC, h.host
     LIMIT ?`,
    maxInstancesListed,
  );
}
