import { isPublicAccount, type User } from '../accounts/users.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';

/**
 * How other servers name the board's actors (docs/API.md "Federation"). Nothing here loads Fedify:
 * the API and the pages read handles while federation's runtime may not be loaded.
 */

export const boardIdentifier = 'board';

/**
 * The name other servers know an account by: its username when Mastodon could have it (letters,
 * digits, `_`, with `.` or `-` inside), else `u{uid}`, as a space or umlaut is unreadable in
 * `@name@host`. WebFinger tries the name as written first, so an account named `u12` keeps it.
 */
export function handleOf(user: Pick<User, 'uid' | 'username'>): string {
  return /^[A-Za-z0-9_]+([.-]+[A-Za-z0-9_]+)*$/.test(user.username) ? user.username : `u${user.uid}`;
}

export function fediverseHandle(config: Pick<Config, 'origin'>, user: Pick<User, 'uid' | 'username'>): string {
  return `@${handleOf(user)}@${new URL(config.origin).host}`;
}

/** The uid a handle names, or undefined: the Group's `board` is no account. */
export function uidOfHandle(db: Db, handle: string): number | undefined {
  if (handle.toLowerCase() === boardIdentifier) return undefined;
  const byName = db.one<{ uid: number }>(
    `SELECT u.uid FROM users u WHERE u.username_key = lower(?) AND ${isPublicAccount}`,
    handle,
  )?.uid;
  if (byName !== undefined) return byName;
  const byId = /^u(\d{1,15})$/.exec(handle);
  return byId ? Number(byId[1]) : undefined;
}
