import type { Db } from '../db/db.ts';
import { modlogPageSize } from '../product.ts';

/** The actions the public log shows (docs/API.md "GET /api/modlog/{page}"). */
export type PublicModAction =
  | 'remove'
  | 'restore'
  | 'ban'
  | 'unban'
  | 'avatar_remove'
  | 'dismiss'
  | 'approve'
  | 'reject'
  | 'registration'
  | 'instance_allow'
  | 'instance_block'
  | 'instance_unblock';
/**
 * Role changes are the administrator's business: only `board-admin modlog` shows them. A trust
 * level is never public (docs/API.md "Trust levels"), so neither is its change.
 */
export type ModAction = PublicModAction | 'mod_add' | 'mod_remove' | 'trust';

/** Who acted: a moderator's uid, or 0 for the administrator at the command line. */
export type ActorUid = number;
export const administrator: ActorUid = 0;

export interface ModlogWrite {
  action: ModAction;
  pid?: number;
  uid?: number;
  reason?: string;
  until?: number;
}

const privateActions: ReadonlySet<ModAction> = new Set(['mod_add', 'mod_remove', 'trust']);

/** Writes one log row; call it inside the action's transaction, so a failed write undoes the action. Returns the row id. */
export function writeModlog(db: Db, actor: ActorUid, row: ModlogWrite, now: number): number {
  // The drawn /modlog pages are kept in the response cache: a new row shows at once.
  db.changes.modlogChanged();
  return db.run(
    `INSERT INTO modlog (created_at, action, pid, uid, reason, until, moderator_uid, public)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    now,
    row.action,
    row.pid ?? 0,
    row.uid ?? 0,
    row.reason ?? '',
    row.until ?? 0,
    actor,
    privateActions.has(row.action) ? 0 : 1,
  ).lastInsertRowid;
}

export interface PublicModlogRow {
  id: number;
  created_at: number;
  action: PublicModAction;
  pid: number;
  username: string;
  reason: string;
  until: number;
}

/** A page of the public log: no moderator named, the board speaks as "die Moderation". */
export function readPublicModlog(db: Db, page: number): PublicModlogRow[] {
  return db.all<PublicModlogRow>(
    `SELECT m.id, m.created_at, m.action, m.pid, coalesce(u.username, '') AS username, m.reason, m.until
     FROM modlog m LEFT JOIN users u ON u.uid = m.uid
     WHERE m.public = 1 ORDER BY m.id DESC LIMIT ? OFFSET ?`,
    modlogPageSize,
    page * modlogPageSize,
  );
}

export interface AdminModlogRow extends Omit<PublicModlogRow, 'action'> {
  action: ModAction;
  moderator: string;
}

const adminModlogSelect = `
  SELECT m.id, m.created_at, m.action, m.pid, coalesce(u.username, '') AS username, m.reason, m.until,
         CASE WHEN m.moderator_uid = 0 THEN 'admin'
              ELSE coalesce(mu.username, 'deleted account #' || m.moderator_uid) END AS moderator
  FROM modlog m LEFT JOIN users u ON u.uid = m.uid LEFT JOIN users mu ON mu.uid = m.moderator_uid`;

export function readAdminModlog(db: Db, page: number): AdminModlogRow[] {
  return db.all<AdminModlogRow>(
    `${adminModlogSelect} ORDER BY m.id DESC LIMIT ? OFFSET ?`,
    modlogPageSize,
    page * modlogPageSize,
  );
}

export interface ModlogRange {
  actor?: ActorUid;
  since: number;
  until: number;
}

/**
 * `board-admin modlog --by NAME --since … --until …`: every row of the range in logged order, so
 * the administrator sees all a moderator did and can undo it; read 500 at a time (a purge logs a
 * row per entry).
 */
export function* readModlogRange(db: Db, range: ModlogRange): Generator<AdminModlogRow> {
  const byActor = range.actor === undefined ? '' : 'm.moderator_uid = ? AND';
  const actor = range.actor === undefined ? [] : [range.actor];
  for (let after = 0; ; ) {
    const rows = db.all<AdminModlogRow>(
      `${adminModlogSelect} WHERE ${byActor} m.id > ? AND m.created_at >= ? AND m.created_at < ? ORDER BY m.id LIMIT 500`,
      ...actor,
      after,
      range.since,
      range.until,
    );
    yield* rows;
    if (rows.length < 500) return;
    after = rows.at(-1)!.id;
  }
}
