import { everyFeedChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import { nameSkeleton, usernameKey } from '../text/usernames.ts';
import { maxUsernameLength, minUsernameLength } from '../product.ts';

export interface User {
  uid: number;
  username: string;
  created_at: number;
  last_login: number;
  avatar: string;
  role: string;
  banned_until: number;
  ban_reason: string;
  /** '' for an account in use; 'pending' or 'rejected' for an application (lib/registration/applications.ts). */
  status: string;
}

export interface UserWithHash extends User {
  pass_hash: string;
}

export const moderatorRole = 'moderator';

const userColumns = 'uid, username, created_at, last_login, avatar, role, banned_until, ban_reason, status';

/**
 * Letters, marks, digits, `.`, `_`, space and `-`, at least one letter or digit, and no
 * default-ignorable code point. Why the last two: a name with U+034F or U+FE0F appended renders
 * exactly like another, and one of Hangul fillers or marks alone renders blank. Older names stay
 * usable.
 */
export function isValidUsername(name: string): boolean {
  const length = [...name].length;
  return (
    length >= minUsernameLength &&
    length <= maxUsernameLength &&
    /^[\p{L}\p{M}\p{Nd}._ -]+$/u.test(name) &&
    !/\p{Default_Ignorable_Code_Point}/u.test(name) &&
    /[\p{L}\p{Nd}]/u.test(name)
  );
}

export function findUserByName(db: Db, name: string): UserWithHash | undefined {
  return db.one<UserWithHash>(`SELECT ${userColumns}, pass_hash FROM users WHERE username_key = ?`, usernameKey(name));
}

export function findUserById(db: Db, uid: number): UserWithHash | undefined {
  return db.one<UserWithHash>(`SELECT ${userColumns}, pass_hash FROM users WHERE uid = ?`, uid);
}

/**
 * SQL: the `users` row aliased `u` is a public account. Why: an application (pending, or rejected
 * and kept 30 days for its reason) is nobody's business but the moderators' and the applicant's
 * until it is approved (docs/API.md "Users"). A banned account stays public, with its ban shown.
 */
export const isPublicAccount = "u.status = ''";

/** The status of an author on another server (lib/federation/remote-entries.ts): never public, never logs in. */
export const remoteStatus = 'remote';

/**
 * SQL: the `users` row in scope is an account of this board (a member or an application), not a
 * remote author. Why: what counts or lists the board's own accounts (the surge gate, the first
 * account, the applications' signals) must not count people of other servers who answered here.
 */
export const isLocalAccount = `status <> '${remoteStatus}'`;

/**
 * The public account of a name, looked up like a login, or undefined (unknown, deleted, or an
 * application): what every surface that shows an account by name asks (profile and its pages,
 * user info and feeds, search by author, mutes), so that none of them shows more than another.
 */
export function findPublicAccount(db: Db, name: string): User | undefined {
  return db.one<User>(
    `SELECT ${userColumns} FROM users u WHERE u.username_key = ? AND ${isPublicAccount}`,
    usernameKey(name),
  );
}

/**
 * True when the name, or a name that looks like it (the same TR39 skeleton: "alice" and "аlice"
 * with a Cyrillic а), is taken by someone other than `exceptUid`.
 */
export function isNameTaken(db: Db, username: string, exceptUid = 0): boolean {
  return (
    db.one(
      'SELECT 1 FROM users WHERE (username_key = ? OR name_skeleton = ?) AND uid <> ?',
      usernameKey(username),
      nameSkeleton(username),
      exceptUid,
    ) !== undefined
  );
}

export interface AccountOrigin {
  status?: '' | 'pending';
  application?: string;
  invitedBy?: number;
  trustSet?: number;
}

/**
 * Inserts a user; undefined when the name or a look-alike is taken. The check and the insert share
 * one transaction, and the UNIQUE index on the key decides a race of the same name.
 */
export function createUser(
  db: Db,
  username: string,
  passHash: string,
  now: number,
  origin: AccountOrigin = {},
): number | undefined {
  return db.tx(() => {
    if (isNameTaken(db, username)) return undefined;
    const inserted = db.run(
      `INSERT INTO users (username, username_key, name_skeleton, pass_hash, created_at, status, application, invited_by, trust_set)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (username_key) DO NOTHING`,
      username,
      usernameKey(username),
      nameSkeleton(username),
      passHash,
      now,
      origin.status ?? '',
      origin.application ?? '',
      origin.invitedBy ?? 0,
      origin.trustSet ?? -1,
    );
    if (inserted.changes === 0) return undefined;
    // A pending account is counted when a moderator approves it (lib/registration/applications.ts).
    if (!origin.status) db.run("UPDATE counters SET value = value + 1 WHERE name = 'users'");
    return inserted.lastInsertRowid;
  });
}

/**
 * Renames; false when another user holds the name or a look-alike. Renaming to a new letter case
 * of one's own name is fine, and so is any name that looks like one's own old one: it adds no new
 * look-alike (an old look-alike pair stays usable).
 */
export function renameUser(db: Db, uid: number, username: string, now: number): boolean {
  const skeleton = nameSkeleton(username);
  const renamed = db.tx(() => {
    const own = db.one<{ name_skeleton: string }>('SELECT name_skeleton FROM users WHERE uid = ?', uid);
    if (!own) return false;
    const taken =
      own.name_skeleton === skeleton
        ? db.one('SELECT 1 FROM users WHERE username_key = ? AND uid <> ?', usernameKey(username), uid) !== undefined
        : isNameTaken(db, username, uid);
    if (taken) return false;
    if (
      db.run(
        'UPDATE users SET username = ?, username_key = ?, name_skeleton = ? WHERE uid = ?',
        username,
        usernameKey(username),
        skeleton,
        uid,
      ).changes === 0
    )
      return false;
    everyFeedChanged(db, now);
    return true;
  });
  // The name shows in every entry the user wrote, in any thread and in the Atom feeds.
  if (renamed) db.changes.everythingChanged();
  return renamed;
}

export function recordLogin(db: Db, uid: number, now: number): void {
  db.run('UPDATE users SET last_login = ? WHERE uid = ?', now, uid);
}

export function setPasswordHash(db: Db, uid: number, passHash: string): void {
  db.run('UPDATE users SET pass_hash = ? WHERE uid = ?', passHash, uid);
}

export function setAvatar(db: Db, uid: number, avatar: string): string {
  return db.tx(() => {
    const previous = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    db.run('UPDATE users SET avatar = ? WHERE uid = ?', avatar, uid);
    db.changes.everythingChanged(); // the avatar shows in every entry the user wrote
    return previous;
  });
}

export function deleteUserRow(db: Db, uid: number): void {
  if (db.run('DELETE FROM users WHERE uid = ?', uid).changes === 1) {
    db.run("UPDATE counters SET value = value - 1 WHERE name = 'users'");
  }
}
