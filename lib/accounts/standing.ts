import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { newAccountLinkDelaySeconds } from '../product.ts';
import { levelOf, trustRow } from './trust.ts';
import { moderatorRole } from './users.ts';

/**
 * What an account may do now under the rules for new accounts and the trust levels, all of them
 * (docs/API.md "Rate limits", "Trust levels"). Why: the common spam pattern is an account made for
 * it: sign up, post, vanish. So an account younger than BOARD_NEW_ACCOUNT_HOURS creates at a third
 * of the account write limits (lib/limits/write-limits.ts applies `createShare`), in its first
 * newAccountLinkDelaySeconds it posts no links and no images, and until it earns level 1 its links
 * and images are capped (the entry gate, lib/entries/content-gate.ts, judges both). An account that
 * starts trusted (the first, board-admin's, moderators, a moderator's level 1) has none of it; after
 * a moderator set level 0 all of it holds. BOARD_LIMITS=0 or BOARD_NEW_ACCOUNT_HOURS=0 turn it off.
 *
 * A request computes it once (ctx.standing()), however many rules ask.
 */

/** While an account is new it creates at this share of the account write limits. */
export const newAccountCreateShare = 1 / 3;

/** What an account may do now under the rules for new accounts and its trust level. */
export interface AccountStanding {
  /** Its share of the account write limits for creates: 1, or newAccountCreateShare while it is new. */
  createShare: number;
  /** Seconds until it may post links and images; 0 once it may. */
  linksWait: number;
  /** At level 0 with the level's caps on links and images in force. */
  levelZero: boolean;
}

/** The standing of an account none of the rules hold back. */
export const unrestricted: Readonly<AccountStanding> = Object.freeze({
  createShare: 1,
  linksWait: 0,
  levelZero: false,
});

/** The standing of account `uid` now, with the board's settings: one read of its row (and of its live entries when its level depends on them). */
export function accountStanding(
  db: Db,
  uid: number,
  config: Pick<Config, 'limitsFactor' | 'newAccountSeconds'>,
  now: number,
): AccountStanding {
  if (config.limitsFactor === 0 || config.newAccountSeconds === 0) return unrestricted;
  const row = trustRow(db, uid);
  if (!row || row.trust_set === 1 || row.role === moderatorRole) return unrestricted;
  const age = now - row.created_at;
  return {
    createShare: age < config.newAccountSeconds || row.trust_set === 0 ? newAccountCreateShare : 1,
    linksWait: newAccountLinksWait(row.created_at, now),
    levelZero: levelOf(db, uid, row, now) === 0,
  };
}

/** Seconds until an account created at `createdAt` may post links and images (the front end's composer note says the same). */
export function newAccountLinksWait(createdAt: number, now: number): number {
  return Math.max(0, newAccountLinkDelaySeconds - (now - createdAt));
}
