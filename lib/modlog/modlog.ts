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
  /** The entry acted on; 0 where none applies. */
  pid?: number;
  /** The account acted on (for entry actions: the entry's author); 0 where none applies. */
  uid?: number;
  reason?: string;
  /** A ban's banned_until; 0 otherwise. */
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

/** One row of the public log. `username` is the account's current name, "" when none applies or the account is gone. */
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

/** A row as the administrator sees it: every action, with who did it. */
export interface AdminModlogRow extends Omit<PublicModlogRow, 'action'> {
  action: ModAction;
  /** A moderator's current name, "admin" for the command line, or "deleted account #<uid>". */
  moderator: string;
}

const adminModlogSelect = `
  SELECT m.id, m.created_at, m.action, m.pid, coalesce(u.username, '') AS username, m.reason, m.until,
         CASE WHEN m.moderator_uid = 0 THEN 'admin'
              ELSE coalesce(mu.username, 'deleted account #' || m.moderator_uid) END AS moderator
  FROM modlog m LEFT JOIN users u ON u.uid = m.uid LEFT JOIN users mu ON mu.uid = m.moderator_uid`;

/** A page of the whole log for `board-admin modlog`, newest first. */
export function readAdminModlog(db: Db, page: number): AdminModlogRow[] {
  return db.all<AdminModlogRow>(
    `${adminModlogSelect} ORDER BY m.id DESC LIMIT ? OFFSET ?`,
    modlogPageSize,
    page * modlogPageSize,
  );
}

export interface ModlogRange {
  /** Only this actor's rows (a moderator's uid, 0 the administrator); undefined: everyone's. */
  actor?: ActorUid;
  /** Unix seconds: rows logged at or after `since` and before `until`. */
  since: number;
  until: number;
}

/**
 * `board-admin modlog --by NAME --since … --until …`: every row of the range in the order they
 * were logged, so the administrator sees all a moderator did and can undo it. Read 500 at a time
 * (a ban's purge logs a row per entry); by actor through the index modlog_by_actor.
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
