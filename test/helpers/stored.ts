import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Db } from '../../lib/db/db.ts';
import type { StoredEntry } from '../../lib/entries/entries.ts';
import { createSession } from '../../lib/accounts/sessions.ts';
import type { TestBoard } from './board.ts';
import { hangBoundMs } from './hang-bound.ts';
export type { StoredEntry };

/** What the board stored, read straight from its database and its media folder. */

/** The stored row of an entry. */
export function entryRow(board: TestBoard, pid: number): StoredEntry | undefined {
  return board.app.services.db.one<StoredEntry>('SELECT * FROM entries WHERE pid = ?', pid);
}

export function entryCount(board: TestBoard): number {
  return board.app.services.db.value('SELECT count(*) FROM entries');
}

export function uidOf(board: TestBoard, username: string): number {
  return board.app.services.db.value('SELECT uid FROM users WHERE username = ?', username);
}

/** How many sessions the account has, as stored. */
export function sessionCount(board: TestBoard, username: string): number {
  return board.app.services.db.value('SELECT count(*) FROM sessions WHERE uid = ?', uidOf(board, username));
}

/** The account's stored password hash. */
export function passHash(board: TestBoard, username: string): string {
  return board.app.services.db.value<string>('SELECT pass_hash FROM users WHERE uid = ?', uidOf(board, username));
}

/** A session made straight in the database, through createSession (the only way there is); returns the cookie value. */
export function sessionInDb(db: Db, uid: number, now: number, lifetime: number, description: string): string {
  const passHash = db.one<{ pass_hash: string }>('SELECT pass_hash FROM users WHERE uid = ?', uid)?.pass_hash ?? '';
  const session = createSession(db, { uid, passHash, lifetime, description }, now);
  if (!('token' in session)) throw new Error(`no session for uid ${uid}: ${session.refused}`);
  return session.token;
}

/** Every file under BOARD_DATA/media, as paths relative to media/. */
export function mediaFiles(board: TestBoard): string[] {
  const root = board.config.mediaDir;
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => statSync(join(root, p)).isFile())
    .map((p) => p.split(sep).join('/'))
    .sort();
}

/**
 * Waits until the background part of every account deletion is done (pending_deletions empty):
 * the 200 comes once the account is gone, its entries, votes and reports follow in slices.
 */
export async function accountRemovalDone(board: TestBoard, timeoutMs = hangBoundMs): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = () => board.app.services.db.value('SELECT count(*) FROM pending_deletions');
  // The image files go after the last slice commits: wait for the run to end too.
  while (pending() > 0 || board.app.jobs?.accountRemoval.busy) {
    if (Date.now() > deadline) throw new Error(`account removal still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The pids the search index holds (lib/search/index.ts), ascending. */
export function indexedPids(board: TestBoard): number[] {
  return board.app.services.db.all<{ pid: number }>('SELECT rowid AS pid FROM search ORDER BY rowid').map((r) => r.pid);
}

/** The pids of live entries (not deleted, not removed), ascending: what the search index must hold. */
export function livePids(board: TestBoard): number[] {
  return board.app.services.db
    .all<{ pid: number }>('SELECT pid FROM entries WHERE deleted = 0 ORDER BY pid')
    .map((r) => r.pid);
}
