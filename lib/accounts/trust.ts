import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { ApiError } from '../http/errors.ts';
import { newAccountCreateShare, type AccountStanding } from './standing.ts';
import {
  levelZeroEntriesWithLinksPerDay,
  levelZeroImagesPerDay,
  levelZeroLinksPerEntry,
  trustAfterLiveEntries,
  trustAfterSeconds,
} from '../limits/product.ts';
import { scaledLimit, type LimitStore } from '../limits/rate-limit.ts';
import { writeModlog, type ActorUid } from '../moderation/modlog.ts';
import { moderatorRole } from './users.ts';

/**
 * Trust levels (docs/API.md "Trust levels"), as Discourse sandboxes new users: an account starts
 * at level 0 and earns level 1 by being old enough and having written enough entries that no
 * moderator removed. Level 0 gets the new-account limits (lib/limits/), few links and images, and
 * cannot invite. The first account, accounts the admin CLI makes and moderators start trusted; a
 * moderator can set a level by hand (users.trust_set; -1 means earned). Never shown publicly.
 */

export type TrustLevel = 0 | 1;

/** What earns level 1 (lib/limits/product.ts). */
export const trustAfter = { seconds: trustAfterSeconds, liveEntries: trustAfterLiveEntries } as const;

/** What level 0 may post (lib/limits/product.ts). */
export const levelZeroMedia = {
  linksPerEntry: levelZeroLinksPerEntry,
  entriesWithLinksPerDay: levelZeroEntriesWithLinksPerDay,
  imagesPerDay: levelZeroImagesPerDay,
} as const;

interface TrustRow {
  created_at: number;
  role: string;
  trust_set: number;
}

/** The level of an account now. */
export function trustLevel(db: Db, uid: number, now: number): TrustLevel {
  const row = db.one<TrustRow>('SELECT created_at, role, trust_set FROM users WHERE uid = ?', uid);
  if (!row) return 0;
  return levelOf(db, uid, row, now);
}

function levelOf(db: Db, uid: number, row: TrustRow, now: number): TrustLevel {
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

/** What a level-0 account still needs for level 1, in German, for messages that say what unlocks more. */
export function trustUnlockText(): string {
  return `ab ${trustAfter.seconds / 86_400} Tagen und ${trustAfter.liveEntries} Beiträgen, die stehen geblieben sind`;
}

/** A moderator sets a level (logged for moderators only: a level is never public). False when unchanged. */
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

/**
 * The new-account rules (lib/accounts/standing.ts: a third of the create limits, no links or
 * images in the first 10 minutes) with trust weighed in: none for an account that starts trusted
 * (the first, board-admin's, moderators, a moderator's level 1), all of them after a moderator
 * set level 0, else the age-based standing as it is. Off with BOARD_LIMITS=0 or BOARD_NEW_ACCOUNT_HOURS=0.
 */
export function standingWithTrust(
  db: Db,
  uid: number,
  standing: AccountStanding,
  config: Pick<Config, 'limitsFactor' | 'newAccountSeconds'>,
): AccountStanding {
  if (config.limitsFactor === 0 || config.newAccountSeconds === 0) return standing;
  const row = db.one<TrustRow>('SELECT created_at, role, trust_set FROM users WHERE uid = ?', uid);
  if (!row || row.trust_set === 1 || row.role === moderatorRole) return { createShare: 1, linksWait: 0 };
  if (row.trust_set === 0) return { ...standing, createShare: newAccountCreateShare };
  return standing;
}

const day = 86_400;

/** The http(s) links of a text, counted as the preview finds its first one (lib/preview/links.ts). */
export function countLinks(text: string): number {
  return text.match(/https?:\/\/[^\s<>"]+/gi)?.length ?? 0;
}

/**
 * Level 0's links and images (levelZeroMedia), checked before an entry with a link or an image is
 * stored (create; edit when it adds a link): 429 rate.new_account with a message that says what
 * the limit is and what unlocks more. A refused entry counts nowhere. Off with BOARD_LIMITS=0.
 */
export function checkLevelZeroMedia(
  app: { db: Db; limits: LimitStore; config: Pick<Config, 'limitsFactor' | 'newAccountSeconds'> },
  uid: number,
  entry: { links: number; image: boolean },
  now: number,
): void {
  const { db, limits, config } = app;
  if (config.limitsFactor === 0 || config.newAccountSeconds === 0) return;
  if ((entry.links === 0 && !entry.image) || trustLevel(db, uid, now) === 1) return;
  const factor = config.limitsFactor;
  const perDay = (limit: number) => ({ limit: scaledLimit(limit, factor), windowSeconds: day });
  const refuse = (wait: number) =>
    new ApiError(429, 'rate.new_account', {
      headers: { 'Retry-After': String(Math.max(1, wait)) },
      limit: 'brake/trust-level',
      message: `Neue Konten können am Tag höchstens ${scaledLimit(levelZeroMedia.entriesWithLinksPerDay, factor)} Beiträge mit Links (je höchstens ${levelZeroMedia.linksPerEntry} Links) und ${scaledLimit(levelZeroMedia.imagesPerDay, factor)} Bild posten. Mehr geht ${trustUnlockText()}.`,
    });
  if (entry.links > levelZeroMedia.linksPerEntry) throw refuse(day);
  const counters = [
    ...(entry.links ? [limits.account('trust0/links', uid, perDay(levelZeroMedia.entriesWithLinksPerDay))] : []),
    ...(entry.image ? [limits.account('trust0/images', uid, perDay(levelZeroMedia.imagesPerDay))] : []),
  ];
  const wait = limits.hit(counters, now, false);
  if (wait > 0) throw refuse(wait);
}
