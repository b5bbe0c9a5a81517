/**
 * What a ban is, in one place: how `users.banned_until` stores it and when one is in force, for
 * the moderation that sets it and for every lookup that must not honour a banned account (its
 * sessions, its private feed).
 */

/** `banned_until` stored: 0 none, -1 permanent, else the Unix time the ban ends. */
export const permanentBan = -1;

export function activeBanUntil(user: { banned_until: number }, now: number): number {
  return user.banned_until === permanentBan || user.banned_until > now ? user.banned_until : 0;
}

/**
 * activeBanUntil in SQL, negated: the `users` row aliased `u` has no ban in force at the time bound
 * to its one `?`. Why an ended ban counts as none: a ban for days ends by itself (docs/API.md
 * "POST /api/mod/user/{username}/ban").
 */
export const noBanInForce = `(u.banned_until <> ${permanentBan} AND u.banned_until <= ?)`;
