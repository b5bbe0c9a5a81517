import type { Config } from '../config.ts';
import { ApiError } from '../http/errors.ts';
import { messages } from '../messages.ts';
import { newAccountLinkDelaySeconds } from '../limits/product.ts';

/**
 * The rules for new accounts, all of them (docs/API.md "Rate limits"). Why: the common spam
 * pattern is an account made for it: sign up, post, vanish. So an account younger than
 * BOARD_NEW_ACCOUNT_HOURS creates at a third of the account write limits (lib/limits/write-limits.ts
 * applies `createShare`), and in its first newAccountLinkDelaySeconds it posts no links and no
 * images (429 rate.new_account). BOARD_LIMITS=0 or BOARD_NEW_ACCOUNT_HOURS=0 turns both off.
 *
 * The one input is the account's creation time, which the session lookup reads in the same row
 * (lib/accounts/sessions.ts LiveSession), so a request reads the account's age once, whichever
 * rule asks. A rule that weighs more than age (say, trust earned by taking part) belongs here too:
 * extend AccountStanding and what accountStanding reads.
 */

/** While an account is new it creates at this share of the account write limits. */
export const newAccountCreateShare = 1 / 3;

/** What an account may do now under the rules for new accounts. */
export interface AccountStanding {
  /** Its share of the account write limits for creates: 1, or newAccountCreateShare while it is new. */
  createShare: number;
  /** Seconds until it may post links and images; 0 once it may. */
  linksWait: number;
}

/** The standing of an account created at `accountCreatedAt` (Unix seconds), with the board's settings, now. */
export function accountStanding(
  accountCreatedAt: number,
  config: Pick<Config, 'limitsFactor' | 'newAccountSeconds'>,
  now: number,
): AccountStanding {
  if (config.limitsFactor === 0 || config.newAccountSeconds === 0) return { createShare: 1, linksWait: 0 };
  const age = now - accountCreatedAt;
  return {
    createShare: age < config.newAccountSeconds ? newAccountCreateShare : 1,
    linksWait: Math.max(0, newAccountLinkDelaySeconds - age),
  };
}

/**
 * 429 rate.new_account with Retry-After while the account may not post links and images yet; the
 * message says when it will work. Create calls it for a link or an image, edit for a new link.
 */
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
