import type { Db } from './db.ts';
import { deleteUserRow } from './users.ts';

/**
 * Hooks that remove what an account owns before its row goes, each returning media paths
 * to delete afterwards. Entries and votes register theirs in their own modules.
 */
const ownedDataRemovers: ((db: Db, uid: number) => string[])[] = [];

export function onAccountDeletion(remove: (db: Db, uid: number) => string[]): void {
  ownedDataRemovers.push(remove);
}

/** Deletes an account and everything it owns in one transaction; returns media files to remove. */
export function deleteAccount(db: Db, uid: number): string[] {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    const media = ownedDataRemovers.flatMap((remove) => remove(db, uid));
    deleteUserRow(db, uid);
    return [avatar, ...media].filter(Boolean);
  });
}
