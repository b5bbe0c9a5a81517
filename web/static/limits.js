// The server's limits and rules as the page shows them (counters, hints, paging, the bump
// cooldown). The server checks every one itself; each copy names what it mirrors, so a change
// there can be found here.

/** Entry text, in code points (docs/API.md "POST /api/entry/create"). */
export const maxContentLength = 1000; // mirrors maxContentLength in lib/api/entries.ts

/** An image's description (alt text), in code points (docs/API.md "POST /api/entry/create"). */
export const maxAltLength = 300; // mirrors maxAltLength in lib/api/entries.ts

/** A report's reason, in code points (docs/API.md "POST /api/entry/{pid}/report"). */
export const maxReasonLength = 500; // mirrors maxReasonLength in lib/moderation/reports.ts

/** A moderation reason, in code points: public on the removed entry and in the log (docs/API.md "Moderation"). */
export const maxModReasonLength = 500; // mirrors maxModReasonLength in lib/moderation/reasons.ts

/** Bans last 1 to 3650 days, or for good. */
export const maxBanDays = 3650; // mirrors maxBanDays in lib/moderation/accounts.ts

/** The report queue shows 20 entries a page, the moderation log 50 rows. */
export const queuePageSize = 20; // mirrors queuePageSize in lib/moderation/reports.ts
export const modlogPageSize = 50; // mirrors modlogPageSize in lib/moderation/modlog.ts

/** Usernames: 3–32 code points of letters, marks, digits, `.`, `_`, space and `-`. */
export const minUsernameLength = 3; // mirrors isValidUsername in lib/accounts/users.ts
export const maxUsernameLength = 32; // mirrors isValidUsername in lib/accounts/users.ts
export const usernameRule = `${minUsernameLength} bis ${maxUsernameLength} Zeichen: Buchstaben, Ziffern, Punkt, Unterstrich, Leerzeichen und Bindestrich.`;

/** New passwords, in code points (docs/API.md "POST /api/auth/newuser"). */
export const minPasswordLength = 10; // mirrors minPasswordLength in lib/api/auth.ts
export const passwordRule = `Mindestens ${minPasswordLength} Zeichen.`;

/** How long a login lasts when the form names no duration: one day. */
export const defaultLoginSeconds = 86_400; // mirrors the default (day) of parseTimeout in lib/api/auth.ts

/** The image types an upload may have (entries and avatars); the server reads the type from the bytes. */
export const imageTypes = 'image/jpeg,image/png,image/gif,image/webp'; // mirrors acceptedFormats in lib/media/images.ts

/** Avatars are cropped to a square of this many pixels. */
export const avatarSize = 256; // mirrors the resize in processAvatar in lib/media/images.ts

/** Feed and profile pages: 20 entries each, pages 0 to 100. */
export const feedPageSize = 20; // mirrors feedPageSize in lib/entries/reads.ts
export const maxFeedPage = 100; // mirrors maxFeedPage in lib/entries/reads.ts

/** Tallies are asked for at most this many entries per request. */
export const maxBulkPids = 100; // mirrors maxBulkPids in lib/api/votes.ts

/** The statistics look back this many days (chart and networks). */
export const statsWindowDays = 30; // mirrors statsWindowDays in lib/stats/impressions.ts

const day = 86_400;

/**
 * When the entry may be bumped again (unix seconds, 0 = now): after the n-th bump, n days after
 * the last, so bumping cannot pin a thread on top. Mirrors bumpCooldownUntil in lib/entries/entries.ts.
 * @param {Pick<Api.Entry, 'bump_count' | 'last_bump'>} entry
 */
export function bumpCooldownUntil(entry) {
  return entry.bump_count > 0 ? entry.last_bump + entry.bump_count * day : 0;
}

/** A search is 1–200 characters (docs/API.md "GET /api/search/{page}"). */
export const maxSearchLength = 200; // mirrors maxQueryLength in lib/search/query.ts

/** The notifications page shows 20 a page; the badge asks at most once a minute. */
export const notificationPageSize = 20; // mirrors notificationPageSize in lib/notifications/notifications.ts

/** Trust level 0's links and images a day (docs/API.md "Trust levels"). */
export const levelZeroLinks = { linksPerEntry: 2, entriesWithLinksPerDay: 2, imagesPerDay: 1 }; // mirrors levelZeroMedia in lib/accounts/trust.ts
/** What earns level 1. */
export const trustUnlock = 'ab 2 Tagen und 3 Beiträgen, die stehen geblieben sind'; // mirrors trustUnlockText in lib/accounts/trust.ts
