import { noBanInForce } from '../accounts/bans.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { instanceAdmitted, instanceOf } from './instances.ts';

/**
 * Whether a remote actor (its id, or its users row's uid) may write now: its instance admitted (not
 * blocked meanwhile) and no ban in force on its users row, if it has one. Asked inside the
 * transaction of every write an activity makes, so a block or a ban that lands while the verified
 * activity waits in the queue holds.
 */
export function remoteWriterAdmitted(db: Db, config: Config, actor: string | number, now: number): boolean {
  const actorId =
    typeof actor === 'string' ? actor : db.value<string>('SELECT id FROM remote_actors WHERE uid = ?', actor);
  if (!actorId || !instanceAdmitted(db, config.federation, instanceOf(actorId))) return false;
  return !db.one(
    `SELECT 1 FROM remote_actors a JOIN users u ON u.uid = a.uid WHERE a.id = ? AND NOT ${noBanInForce}`,
    actorId,
    now,
  );
}
