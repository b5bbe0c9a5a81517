import type { Db } from './db.ts';

export interface User {
  uid: number;
  username: string;
  created_at: number;
  last_login: number;
  avatar: string;
  /** '' or moderatorRole (docs/API.md "Moderation"). */
  role: string;
  /** 0 none, -1 permanent, else the Unix time the ban ends; see activeBanUntil. */
  banned_until: number;
  ban_reason: string;
}

export interface UserWithHash extends User {
  pass_hash: string;
}

/** The one role an account can have besides plain user: made by board-admin mod add. */
export const moderatorRole = 'moderator';

const userColumns = 'uid, username, created_at, last_login, avatar, role, banned_until, ban_reason';

/** NFC, trimmed, inner whitespace collapsed to one space (docs/API.md "Choices the spec left open": Accounts). */
export function normaliseUsername(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** 3–32 code points of letters, marks, digits, `.`, `_`, space and `-`. */
export function isValidUsername(name: string): boolean {
  const length = [...name].length;
  return length >= 3 && length <= 32 && /^[\p{L}\p{M}\p{Nd}._ -]+$/u.test(name);
}

/** The key names are unique by: SQLite's NOCASE folds ASCII only, so we fold in JS and store it. */
export function usernameKey(name: string): string {
  return normaliseUsername(name).toLowerCase();
}

export function findUserByName(db: Db, name: string): UserWithHash | undefined {
  return db.one<UserWithHash>(`SELECT ${userColumns}, pass_hash FROM users WHERE username_key = ?`, usernameKey(name));
}

export function findUserById(db: Db, uid: number): UserWithHash | undefined {
  return db.one<UserWithHash>(`SELECT ${userColumns}, pass_hash FROM users WHERE uid = ?`, uid);
}

/** Inserts a user; undefined when the name is taken (the UNIQUE index decides, so races are safe). */
export function createUser(db: Db, username: string, passHash: string, now: number): number | undefined {
  return db.tx(() => {
    const inserted = db.run(
      'INSERT INTO users (username, username_key, pass_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (username_key) DO NOTHING',
      username, usernameKey(username), passHash, now,
    );
    if (inserted.changes === 0) return undefined;
    db.run("UPDATE counters SET value = value + 1 WHERE name = 'users'");
    return inserted.lastInsertRowid;
  });
}

/** Renames; false when another user holds the name (renaming to a new letter case of one's own name is fine). */
export function renameUser(db: Db, uid: number, username: string): boolean {
  const key = usernameKey(username);
  const renamed = db.run('UPDATE users SET username = ?, username_key = ? WHERE uid = ? AND NOT EXISTS (SELECT 1 FROM users WHERE username_key = ? AND uid <> ?)', username, key, uid, key, uid).changes === 1;
  // The name shows in every entry the user wrote, in any thread.
  if (renamed) db.responses.everythingChanged();
  return renamed;
}

export function recordLogin(db: Db, uid: number, now: number): void {
  db.run('UPDATE users SET last_login = ? WHERE uid = ?', now, uid);
}

export function setPasswordHash(db: Db, uid: number, passHash: string): void {
  db.run('UPDATE users SET pass_hash = ? WHERE uid = ?', passHash, uid);
}

/** Sets the avatar path and returns the previous one, so the caller can remove the old file. */
export function setAvatar(db: Db, uid: number, avatar: string): string {
  return db.tx(() => {
    const previous = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    db.run('UPDATE users SET avatar = ? WHERE uid = ?', avatar, uid);
    db.responses.everythingChanged(); // the avatar shows in every entry the user wrote
    return previous;
  });
}

/** Removes the user row (sessions and reset links go with it by cascade). Call inside deleteAccount's transaction. */
export function deleteUserRow(db: Db, uid: number): void {
  if (db.run('DELETE FROM users WHERE uid = ?', uid).changes === 1) {
    db.run("UPDATE counters SET value = value - 1 WHERE name = 'users'");
  }
}
