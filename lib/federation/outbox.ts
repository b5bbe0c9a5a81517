import { noBanInForce } from '../accounts/bans.ts';
import { isPublicAccount } from '../accounts/users.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/db.ts';

/**
 * The outbox (docs/OPERATIONS.md "Federation"): every write other servers hear of leaves one row
 * in federation_outbox inside its own transaction (the database's event hook, lib/db/db.ts), so a
 * rolled-back write tells nobody and a committed one is never lost, even to a crash. The delivery
 * job (lib/federation/delivery.ts) turns each row into its activities and one delivery per inbox.
 * Nothing here loads Fedify: the rows are plain facts.
 */

export type OutboxKind =
  | 'create'
  | 'update'
  | 'delete'
  | 'vote'
  | 'unvote'
  | 'bump'
  | 'accept'
  | 'follow'
  | 'unfollow'
  | 'delete_person';

export interface OutboxItem {
  kind: OutboxKind;
  /** Who acts: the author, voter or bumper; 0 for the Group. */
  actorUid: number;
  pid?: number;
  detail?: Record<string, string | number | boolean>;
}

/** Writes one row; call it inside the transaction of the write it tells of. */
export function queueOutbox(db: Db, item: OutboxItem, now: number): void {
  db.run(
    'INSERT INTO federation_outbox (kind, actor_uid, pid, detail, created_at) VALUES (?, ?, ?, ?, ?)',
    item.kind,
    item.actorUid,
    item.pid ?? 0,
    item.detail ? JSON.stringify(item.detail) : '',
    now,
  );
}

/** Whether an account federates now: public (not an application) and without a ban in force. */
export function federates(db: Db, uid: number, now: number): boolean {
  return (
    db.one(`SELECT 1 FROM users u WHERE u.uid = ? AND ${isPublicAccount} AND ${noBanInForce}`, uid, now) !== undefined
  );
}

function federatingAuthor(db: Db, pid: number, now: number): number | undefined {
  const uid = db.one<{ uid: number }>('SELECT uid FROM entries WHERE pid = ?', pid)?.uid;
  return uid !== undefined && federates(db, uid, now) ? uid : undefined;
}

/**
 * Registers the outbox on the database's event hook (lib/app.ts and bin/cli.ts, when federation is
 * on). A banned or unpublic account's acts are not queued: a banned account stops federating.
 * Deletions and removals always are, so other servers drop what the board took down.
 */
export function recordFederationEvents(db: Db, clock: Clock, wake: () => void = () => {}): void {
  /** Queues the row, and wakes the job after the write's transaction: it reads committed rows only. */
  const queue = (item: OutboxItem, now = clock.now()) => {
    queueOutbox(db, item, now);
    setImmediate(wake);
  };
  db.onEvent({
    entryCreated(pid) {
      const uid = federatingAuthor(db, pid, clock.now());
      if (uid !== undefined) queue({ kind: 'create', actorUid: uid, pid });
    },
    entryEdited(pid) {
      const uid = federatingAuthor(db, pid, clock.now());
      if (uid !== undefined) queue({ kind: 'update', actorUid: uid, pid });
    },
    entryDeleted(pid, removed) {
      const uid = db.one<{ uid: number }>('SELECT uid FROM entries WHERE pid = ?', pid)?.uid;
      if (uid) queue({ kind: 'delete', actorUid: uid, pid, detail: { removed } });
    },
    voteChanged(pid, uid, before, after) {
      if (!federates(db, uid, clock.now())) return;
      if (before) queue({ kind: 'unvote', actorUid: uid, pid, detail: { ...before } });
      if (after) queue({ kind: 'vote', actorUid: uid, pid, detail: { ...after } });
    },
    entryBumped(pid, uid, at) {
      if (federates(db, uid, at)) queue({ kind: 'bump', actorUid: uid, pid, detail: { at } }, at);
    },
    accountDeleted(uid) {
      queue({ kind: 'delete_person', actorUid: uid });
    },
  });
}

/** The delivery metrics (docs/OPERATIONS.md "Metrics"): waiting, delivered and given up by instance; the oldest waiting. */
export function deliveryState(db: Db, now: number) {
  return {
    byInstance: db.all<{ host: string; queued: number; delivered: number; failed: number }>(
      `WITH hosts AS (SELECT host FROM federation_deliveries UNION SELECT host FROM federation_instances)
       SELECT h.host, (SELECT count(*) FROM federation_deliveries d WHERE d.host = h.host) AS queued,
              coalesce(i.delivered, 0) AS delivered, coalesce(i.failed, 0) AS failed
       FROM hosts h LEFT JOIN federation_instances i ON i.host = h.host
       ORDER BY queued DESC, h.host LIMIT 200`,
    ),
    oldestWaitingSeconds: Math.max(
      0,
      now - (db.one<{ at: number | null }>('SELECT min(created_at) AS at FROM federation_deliveries')?.at ?? now),
    ),
    outbox: db.value('SELECT count(*) FROM federation_outbox'),
  };
}
