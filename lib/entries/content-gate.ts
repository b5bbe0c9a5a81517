import type { AccountStanding } from '../accounts/standing.ts';
import { trustUnlockText } from '../accounts/trust.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { ApiError, invalidField } from '../errors.ts';

import {
  duplicateWindowSeconds,
  levelZeroEntriesWithLinksPerDay,
  levelZeroImagesPerDay,
  levelZeroLinksPerEntry,
  maxAltLength,
  maxContentLength,
  minDuplicateLength,
} from '../product.ts';
import { scaledLimit, type LimitStore } from '../limits/rate-limit.ts';
import { fieldMessages, messages } from '../messages.ts';
import { countLinks, entryLink } from '../text/links.ts';
import type { EntryRow } from './reads.ts';
import { codePoints } from '../text/code-points.ts';

/**
 * The one gate on what an entry may hold (docs/API.md "POST /api/entry/create", "…/edit", "Trust
 * levels"): its length, its image description, its links and images while the account is new or at
 * level 0, and the same text twice. Every path that writes an entry's text goes through it, so a
 * rule holds for a create and an edit alike. An edit is judged on what the entry holds after it;
 * only the day's counts skip what it already held. Mentions are bounded where they are told
 * (lib/notifications/notifications.ts).
 */

export interface EntryAuthor {
  uid: number;
  standing: AccountStanding;
}

export interface EntryDraft {
  content: string;
  image: boolean;
  alt?: string;
}

export type EditedEntry = Pick<EntryRow, 'pid' | 'content' | 'filepath'>;

export interface JudgedEntry {
  content: string;
  link: string;
  /**
   * The rule that depends on what the account wrote just now (the same text twice): call it
   * inside the transaction that writes, so two copies sent at once cannot both pass.
   */
  checkInWrite(db: Db): void;
}

interface GateServices {
  limits: LimitStore;
  config: Pick<Config, 'limitsFactor'>;
}

/**
 * Judges a draft for a create (`edited` undefined) or an edit of `edited`, in the order of docs/API.md
 * "Order of checks": 400 entry.empty, entry.too_long, input.invalid `alt`, then 429 rate.new_account.
 * A draft it refuses counts nowhere.
 */
export function judgeEntryContent(
  services: GateServices,
  author: EntryAuthor,
  draft: EntryDraft,
  now: number,
  edited?: EditedEntry,
): JudgedEntry {
  if (!draft.content && !draft.image) throw new ApiError(400, 'entry.empty');
  if (codePoints(draft.content) > maxContentLength) throw new ApiError(400, 'entry.too_long', { field: 'content' });
  if (draft.alt !== undefined && codePoints(draft.alt) > maxAltLength) throw invalidField('alt', fieldMessages.altLong);
  const links = countLinks(draft.content);
  if (links > 0 || draft.image) refuseLinksWhileNew(author.standing);
  if (author.standing.levelZero) {
    const added = {
      links: links > 0 && !(edited && countLinks(edited.content) > 0),
      image: draft.image && !edited?.filepath,
    };
    checkLevelZeroMedia(services, author.uid, links, added, now);
  }
  const { content } = draft;
  return {
    content,
    link: entryLink(content),
    checkInWrite(db) {
      if (services.config.limitsFactor > 0 && isRecentDuplicate(db, author.uid, content, now, edited?.pid))
        throw new ApiError(409, 'entry.duplicate', { field: 'content' });
    },
  };
}

export function refuseLinksWhileNew(standing: AccountStanding): void {
  const wait = standing.linksWait;
  if (wait <= 0) return;
  const minutes = Math.ceil(wait / 60);
  throw new ApiError(429, 'rate.new_account', {
    headers: { 'Retry-After': String(wait) },
    limit: 'brake/new-account',
    message: `${messages['rate.new_account']} Das geht in ${minutes === 1 ? 'einer Minute' : `${minutes} Minuten`}.`,
  });
}

const day = 86_400;

/**
 * Level 0's links and images (lib/product.ts): at most levelZeroLinksPerEntry links in an
 * entry, and a day's budget of entries that got links and of images, counted only for what the
 * write adds. 429 rate.new_account with a message that says what the limit is and what unlocks more.
 */
function checkLevelZeroMedia(
  services: GateServices,
  uid: number,
  links: number,
  added: { links: boolean; image: boolean },
  now: number,
): void {
  const { limits, config } = services;
  const factor = config.limitsFactor;
  const perDay = (limit: number) => ({ limit: scaledLimit(limit, factor), windowSeconds: day });
  const refuse = (wait: number) =>
    new ApiError(429, 'rate.new_account', {
      headers: { 'Retry-After': String(Math.max(1, wait)) },
      limit: 'brake/trust-level',
      message: `Neue Konten können am Tag höchstens ${scaledLimit(levelZeroEntriesWithLinksPerDay, factor)} Beiträge mit Links (je höchstens ${levelZeroLinksPerEntry} Links) und ${scaledLimit(levelZeroImagesPerDay, factor)} Bild posten. Mehr geht ${trustUnlockText()}.`,
    });
  if (links > levelZeroLinksPerEntry) throw refuse(day);
  const counters = [
    ...(added.links ? [limits.account('trust0/links', uid, perDay(levelZeroEntriesWithLinksPerDay))] : []),
    ...(added.image ? [limits.account('trust0/images', uid, perDay(levelZeroImagesPerDay))] : []),
  ];
  if (counters.length === 0) return;
  const wait = limits.hit(counters, now, false);
  if (wait > 0) throw refuse(wait);
}

/** How many of an account's newest entries the duplicate check reads: more than the create limits allow in 10 minutes. */
const duplicateLookback = 100;

const foldText = (text: string) => text.trim().normalize('NFC').toLowerCase();

/**
 * True when the account wrote the same text (trimmed, case-folded) into another of its newest live
 * entries, created or edited, within duplicateWindowSeconds; short texts are exempt. Why edits
 * count: else distinct texts edited into copies of one another would pass.
 */
function isRecentDuplicate(db: Db, uid: number, content: string, now: number, exceptPid = 0): boolean {
  const folded = foldText(content);
  if ([...folded].length < minDuplicateLength) return false;
  const recent = db.all<{ content: string }>(
    `SELECT content FROM (SELECT pid, content, deleted, max(created_at, edited_at) AS written
                          FROM entries WHERE uid = ? ORDER BY pid DESC LIMIT ?)
     WHERE deleted = 0 AND written > ? AND pid <> ?`,
    uid,
    duplicateLookback,
    now - duplicateWindowSeconds,
    exceptPid,
  );
  return recent.some((e) => foldText(e.content) === folded);
}
