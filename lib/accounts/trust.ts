import type { Db } from '../db/db.ts';
import { trustAfterLiveEntries, trustAfterSeconds } from '../product.ts';
import { writeModlog, type ActorUid } from '../modlog/modlog.ts';
import { moderatorRole } from './users.ts';

/**
 * Trust levels (docs/API.md "Trust levels"), as Discourse sandboxes new users: an account starts
 * at level 0 and earns level 1 by being old enough and having written enough entries that no
 * moderator removed. Level 0 gets the new-account limits and few links and images (its standing,
 * lib/accounts/standing.ts, judged by the entry gate, lib/entries/content-gate.ts), and cannot invite. The first account, accounts the admin CLI makes and moderators start trusted; a
 * moderator can set a level by hand (users.trust_set; -1 means earned). Never shown publicly.
 */

export type TrustLevel = 0 | 1;

export const trustAfter = { seconds: trustAfterSeconds, liveEntries: trustAfterLiveEntries } as const;

export interface TrustRow {
  created_at: number;
  role: string;
  trust_set: number;
}

export function trustRow(db: Db, uid: number): TrustRow | undefined {
  return db.one<TrustRow>('SELECT created_at, role, trust_set FROM users WHERE uid = ?', uid);
}

export function trustLevel(db: Db, uid: number, now: number): TrustLevel {
  const row = trustRow(db, uid);
  if (!row) return 0;
  return levelOf(db, uid, row, now);
}

export function levelOf(db: Db, uid: number, row: TrustRow, now: number): TrustLevel {
  if (row.trust_set === 0 || row.trust_set === 1) return row.trust_set;
  if (row.role === moderatorRole) return 1;
  if (now - row.created_at < trustAfter.seconds) return 0;
  const live = db.one<{ n: number }>(
    'SELECT count(*) AS n FROM (SELECT 1 FROM entries WHERE uid = ? AND deleted = 0 LIMIT ?)',
    uid,
    trustAfter.liveEntries,
  )!.n;
  return live >= trustAfter.liveEntries ? 1 : 0;
}

export function trustUnlockText(): string {
  return `ab ${trustAfter.seconds / 86_400} Tagen und ${trustAfter.liveEntries} Beiträgen, die stehen geblieben sind`;
}

/** A moderator sets a level (logged for `board-admin modlog` only: a level is never public). False when unchanged. */
export function setTrustLevel(db: Db, uid: number, level: TrustLevel, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const changed = db.run(
      'UPDATE users SET trust_set = ? WHERE uid = ? AND trust_set <> ?',
      level,
      uid,
      level,
    ).changes;
    if (changed === 0) return false;
    writeModlog(db, actor, { action: 'trust', uid, reason: String(level) }, now);
    return true;
  });
}
