import type { Db } from '../db/db.ts';
import { isPublicAccount } from '../accounts/users.ts';
import { maxUsernameLength, minUsernameLength } from '../product.ts';
import { usernameKey } from '../text/usernames.ts';

/**
 * Mentions in entry text (docs/API.md "Notifications of replies and mentions"): `@` followed by
 * the longest username of a public account (an application is nobody to mention), in any letter
 * case. Names hold spaces and dots, so the name cannot be cut off at the first space: the text
 * after `@` is tried at every word end, longest first, and a trailing `.` may be dropped
 * (`.,;:!?` never belong to a name, so they end it).
 * One query looks up every candidate of an entry by the unique username key; users are never
 * scanned.
 */

/** How many `@` signs of one entry are looked at: more than anyone mentions on purpose. */
const maxMentionSigns = 20;

/**
 * An `@` that starts a mention: at the start of the text or after a character that cannot be
 * part of a name (so "info@example.org" mentions nobody), followed by a run of the characters
 * names are made of.
 */
const mentionPattern = /(?<![\p{L}\p{M}\p{Nd}._-])@([\p{L}\p{M}\p{Nd}._ -]+)/gu;
const nameEnd = /[\p{L}\p{M}\p{Nd}]/u;

function candidatesOf(run: string): string[] {
  const chars = [...run];
  const candidates: string[] = [];
  for (let end = Math.min(chars.length, maxUsernameLength); end >= minUsernameLength; end--) {
    // A name ends where a word ends: "@Annabell" is no mention of "Anna".
    if (end < chars.length && nameEnd.test(chars[end]!) && nameEnd.test(chars[end - 1]!)) continue;
    const prefix = chars.slice(0, end).join('');
    candidates.push(prefix, prefix.replace(/\.+$/, ''));
  }
  return [...new Set(candidates.map(usernameKey))].filter((key) => [...key].length >= minUsernameLength);
}

export function mentionedUids(db: Db, text: string): number[] {
  const mentions = [...text.matchAll(mentionPattern)].slice(0, maxMentionSigns).map((match) => candidatesOf(match[1]!));
  const keys = [...new Set(mentions.flat())];
  if (keys.length === 0) return [];
  const found = new Map(
    db
      .all<{ uid: number; username_key: string }>(
        `SELECT u.uid, u.username_key FROM users u
         WHERE u.username_key IN (SELECT value FROM json_each(?)) AND ${isPublicAccount}`,
        JSON.stringify(keys),
      )
      .map((user) => [user.username_key, user.uid]),
  );
  const uids = mentions.map((candidates) => candidates.map((key) => found.get(key)).find((uid) => uid !== undefined));
  return [...new Set(uids.filter((uid) => uid !== undefined))];
}
