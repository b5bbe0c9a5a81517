// The product rules the page states or computes from the server's limits (web/static/limits.js).

import {
  bumpCooldownStepSeconds,
  levelZeroEntriesWithLinksPerDay,
  levelZeroImagesPerDay,
  levelZeroLinksPerEntry,
  maxUsernameLength,
  minPasswordLength,
  minUsernameLength,
  newAccountLinkDelaySeconds,
  trustAfterLiveEntries,
  trustAfterSeconds,
} from './limits.js';

/** The hint under a username field. */
export const usernameRule = `${minUsernameLength} bis ${maxUsernameLength} Zeichen: Buchstaben, Ziffern, Punkt, Unterstrich, Leerzeichen und Bindestrich.`;

/** The hint under a new password field. */
export const passwordRule = `Mindestens ${minPasswordLength} Zeichen.`;

/**
 * When the entry may be bumped again (unix seconds, 0 = now): after the n-th bump, n steps after
 * the last, as the server's bumpCooldownUntil (lib/entries/entries.ts) computes it;
 * test/unit/front-end-limits.test.ts checks the two agree.
 * @param {Pick<Api.Entry, 'bump_count' | 'last_bump'>} entry
 */
export function bumpCooldownUntil(entry) {
  return entry.bump_count === 0 ? 0 : entry.last_bump + entry.bump_count * bumpCooldownStepSeconds;
}

/** What earns trust level 1 (docs/API.md "Trust levels"), to follow "ab". */
export const trustUnlock = `ab ${trustAfterSeconds / 86_400} Tagen und ${trustAfterLiveEntries} Beiträgen, die stehen geblieben sind`;

/**
 * A new account's first minutes (docs/API.md "Rate limits"): no links and no images yet; the
 * server's refusal (rate.new_account) says the same.
 */
export const newAccountLinkRule = `In den ersten ${newAccountLinkDelaySeconds / 60} Minuten nach der Registrierung kannst du noch keine Links oder Bilder posten.`;

/**
 * Whether an account created at `createdAt` (Unix seconds) is still in those first minutes.
 * @param {number} createdAt
 * @param {number} [now] Unix seconds
 */
export function inFirstMinutes(createdAt, now = Date.now() / 1000) {
  return now < createdAt + newAccountLinkDelaySeconds;
}

/** What a trust level 0 account may post, and what earns more (docs/API.md "Trust levels"); the server's message says the same. */
export const levelZeroRule = `Als neues Konto kannst du am Tag höchstens ${levelZeroEntriesWithLinksPerDay} Beiträge mit Links (je höchstens ${levelZeroLinksPerEntry}) und ${levelZeroImagesPerDay} Bild posten. Mehr geht ${trustUnlock}.`;
