import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { newAccountLinkDelaySeconds } from '../product.ts';
import { levelOf, trustRow } from './trust.ts';
import { moderatorRole } from './users.ts';

/**
 * What an account may do now under the rules for new accounts and the trust levels (docs/API.md
 * "Rate limits", "Trust levels"). Why: the common spam pattern is an account made for it: sign up,
 * post, vanish. So a new account (BOARD_NEW_ACCOUNT_HOURS) creates at a share of the account write
 * limits and posts no links or images at first, and until level 1 its links and images are capped
 * (judged by lib/entries/content-gate.ts). An account that starts trusted has none of it; a
 * moderator's level 0 brings it all back. BOARD_LIMITS=0 or BOARD_NEW_ACCOUNT_HOURS=0 turn it off.
 * A request computes it once (ctx.standing()).
 */

export const newAccountCreateShare = 1 / 3;

export interface AccountStanding {
  createShare: number;
  linksWait: number;
  levelZero: boolean;
}

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

export function newAccountLinksWait(createdAt: number, now: number): number {
  return Math.max(0, newAccountLinkDelaySeconds - (now - createdAt));
}
