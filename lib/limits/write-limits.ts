import { ApiError } from '../errors.ts';
import { rateLimitSubject } from '../ip/address.ts';
import { scaledLimit, waitText, type Counter, type LimitStore, type RateRule } from './rate-limit.ts';

/**
 * The write limits (docs/API.md "Rate limits"): every write counts per account and per client
 * address (an IPv6 client per /64), each in a short window (a burst) and a long one. Why both:
 * the account limits hold one account to a human pace, the address limits hold many fresh
 * accounts of one client; an address gets three times an account's numbers because a household
 * or an office shares one. BOARD_LIMITS multiplies every number; 0 turns them off, except for the
 * groups marked `alwaysOn`.
 */
const minute = 60;
const hour = 3600;
const day = 86_400;

export type Windows = readonly (readonly [limit: number, windowSeconds: number])[];

interface WriteRule {
  account?: Windows;
  address: Windows;
  /** Not an abuse brake but a privacy and cost limit: BOARD_LIMITS neither scales nor lifts it. */
  alwaysOn?: boolean;
  counts: string;
}

export const writeLimitRules = {
  // 6 a minute is a fast typist's pace; 60 an hour still lets a lively discussion run.
  create: {
    counts: 'Beiträge',
    account: [
      [6, minute],
      [60, hour],
    ],
    address: [
      [18, minute],
      [180, hour],
    ],
  },
  edit: {
    counts: 'Bearbeitungen',
    account: [
      [20, minute],
      [200, hour],
    ],
    address: [
      [60, minute],
      [600, hour],
    ],
  },
  delete: {
    counts: 'Löschungen',
    account: [
      [20, minute],
      [200, hour],
    ],
    address: [
      [60, minute],
      [600, hour],
    ],
  },
  // A reader may go through a page of 20 entries and vote on each: 60 a minute leaves room.
  vote: {
    counts: 'Stimmen',
    account: [
      [60, minute],
      [600, hour],
    ],
    address: [
      [180, minute],
      [1800, hour],
    ],
  },
  // Each entry has its own growing cooldown; this bounds how many entries one account pushes up.
  bump: {
    counts: 'Hochholungen',
    account: [
      [10, minute],
      [60, hour],
    ],
    address: [
      [30, minute],
      [180, hour],
    ],
  },
  // A name change shows on every entry of the account (and empties every cached page).
  rename: {
    counts: 'Namensänderungen',
    account: [
      [2, minute],
      [5, hour],
    ],
    address: [
      [6, minute],
      [15, hour],
    ],
  },
  avatar: {
    counts: 'Avatar-Änderungen',
    account: [
      [3, minute],
      [10, hour],
    ],
    address: [
      [9, minute],
      [30, hour],
    ],
  },
  // Mute and unmute together: a reader tidying up a list clicks fast, nobody needs 300 a day.
  mute: {
    counts: 'Stummschaltungen',
    account: [
      [30, minute],
      [300, day],
    ],
    address: [
      [90, minute],
      [900, day],
    ],
  },
  // A data export reads every row and file of the account: 3 an hour per account, from wherever
  // it is asked (a stolen session must not turn it into a way to wear the server down).
  export: { account: [[3, hour]], address: [], alwaysOn: true, counts: 'Datenexporte' },
  // Invites: a member bringing friends makes them in a row, and past the open bound is told so by
  // that bound, not by this one. The long window is the per-week bound (maxInvitesPerWeek), counted
  // from the invites themselves, so revoking one gives no place back.
  invite: {
    account: [[10, minute]],
    address: [
      [30, minute],
      [60, hour],
    ],
    counts: 'Einladungen',
  },
  // A new private feed address now and then; more is someone scripting against the token table.
  feedToken: { account: [[10, hour]], address: [[30, hour]], counts: 'neue Feed-Adressen' },
  // Follow and unfollow together: like mutes, a reader tidies a list in bursts.
  follow: {
    account: [
      [30, minute],
      [300, day],
    ],
    address: [
      [90, minute],
      [900, day],
    ],
    counts: 'Folgen und Entfolgen',
  },
  // A browser subscribes to pushes once per session; more is a script filling the device table.
  push: { account: [[20, hour]], address: [[60, hour]], counts: 'Push-Anmeldungen' },
  // SPEC's 20 a minute per address stays (group newuser); this caps a whole day of them.
  register: { address: [[50, day]], counts: 'Registrierungen' },
  // The moderation's actions, per moderator account and with no address limit (moderators sharing
  // an office must not share one). Why: a stolen or rogue moderator account could remove hundreds
  // of entries in a second, while a spam wave cleaned by hand goes at about a click a second.
  modEntry: {
    account: [
      [30, minute],
      [500, hour],
    ],
    address: [],
    counts: 'Moderationsaktionen an Beiträgen (entfernen, wiederherstellen, Meldungen verwerfen)',
  },
  modAccount: {
    account: [
      [10, minute],
      [100, hour],
    ],
    address: [],
    counts: 'Moderationsaktionen an Konten (sperren, entsperren, Avatar entfernen)',
  },
} as const satisfies Record<string, WriteRule>;

export type WriteGroup = keyof typeof writeLimitRules;

export interface Writer {
  uid?: number;
  ip: string;
  createShare?: number;
}

/**
 * Counts one write in each of its windows (BOARD_LIMITS as `limitsFactor`), all or none, and throws 429 rate.limited with
 * Retry-After when any is full; a refused write counts nowhere, so waiting Retry-After is enough.
 */
export function checkWriteLimit(
  store: LimitStore,
  group: WriteGroup,
  writer: Writer,
  limitsFactor: number,
  now: number,
): void {
  const rule: WriteRule = writeLimitRules[group];
  const factor = rule.alwaysOn ? 1 : limitsFactor;
  if (factor === 0) return;
  const counters: Counter[] = [];
  const subject = rateLimitSubject(writer.ip);
  for (const [limit, windowSeconds] of rule.address) {
    counters.push(
      store.keyed(`${group}/${windowSeconds}`, subject, { limit: scaledLimit(limit, factor), windowSeconds }, now),
    );
  }
  if (writer.uid !== undefined) {
    const share = group === 'create' ? (writer.createShare ?? 1) : 1;
    for (const [limit, windowSeconds] of rule.account ?? []) {
      const accountRule: RateRule = { limit: scaledLimit(limit, factor * share), windowSeconds };
      counters.push(store.account(`${group}/${windowSeconds}`, writer.uid, accountRule));
    }
  }
  const wait = store.hit(counters, now, false);
  if (wait > 0) {
    const share = group === 'create' ? (writer.createShare ?? 1) : 1;
    throw new ApiError(429, 'rate.limited', {
      headers: { 'Retry-After': String(wait) },
      limit: `write/${group}`,
      message: `Zu viele ${rule.counts}: höchstens ${limitText(rule, writer.uid !== undefined, factor, share)}. Bitte warte noch ${waitText(wait)}.`,
    });
  }
}

function limitText(rule: WriteRule, perAccount: boolean, factor: number, share: number): string {
  const account = perAccount && rule.account?.length ? windowsText(rule.account, factor * share) : '';
  const parts = [
    account && (share < 1 ? `${account} für neue Konten` : account),
    rule.address.length ? `${windowsText(rule.address, factor)} von einer Adresse` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

const perWindow: Record<number, string> = { [minute]: 'pro Minute', [hour]: 'pro Stunde', [day]: 'pro Tag' };

export function windowsText(windows: Windows, factor: number): string {
  return windows.map(([limit, seconds]) => `${scaledLimit(limit, factor)} ${perWindow[seconds]}`).join(' und ');
}
