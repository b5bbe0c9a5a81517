import { ApiError } from '../errors.ts';
import { ipv6SiteSubject, rateLimitSubject } from '../ip/address.ts';
import { scaledLimit, waitText, type Counter, type LimitStore } from './rate-limit.ts';
import { usernameKey } from '../text/usernames.ts';

/**
 * The login brakes besides SPEC's 20 a minute per address (docs/API.md "Rate limits"), all off with
 * BOARD_LIMITS=0 and checked before any hashing. An IPv6 site (/48) gets 60 logins a minute: a
 * dozen /64s of one site are one client. Failed logins count per name (existing or not, so the
 * answer tells nothing) and board-wide; past 20 a minute for a name, or 300 for the board, an
 * address that has itself failed in the last 10 minutes waits, while others still get their tries
 * (for an attacked name against a solved challenge). Why: guessing from many addresses is held, and
 * the name's owner, or any honest user during a flood, is not locked out.
 */
const minute = 60;
const siteLogins = { limit: 60, windowSeconds: minute };
const failuresPerName = { limit: 20, windowSeconds: minute };
const failuresBoardWide = { limit: 300, windowSeconds: minute };
const suspectSeconds = 600;

export interface LoginAttempt {
  store: LimitStore;
  factor: number;
  ip: string;
  username: string;
  now: number;
}

function failureCounters({ store, factor, ip, username, now }: LoginAttempt): {
  name: Counter;
  board: Counter;
  address: Counter;
} {
  return {
    name: store.keyed(
      'login-failed/name',
      usernameKey(username),
      { ...failuresPerName, limit: scaledLimit(failuresPerName.limit, factor) },
      now,
    ),
    board: store.account('login-failed/board', 0, {
      ...failuresBoardWide,
      limit: scaledLimit(failuresBoardWide.limit, factor),
    }),
    address: store.keyed(
      'login-failed/address',
      rateLimitSubject(ip),
      { limit: 1, windowSeconds: suspectSeconds },
      now,
    ),
  };
}

const brakeText = {
  'login-site': (factor: number) =>
    `Zu viele Anmeldeversuche aus diesem Netz: höchstens ${scaledLimit(siteLogins.limit, factor)} pro Minute`,
  'login-failures': () =>
    'Für diesen Namen (oder das ganze Board) gab es gerade zu viele falsche Passwörter, und von deiner Adresse kam eines davon',
};

const limited = (wait: number, brake: 'login-site' | 'login-failures', factor: number) =>
  new ApiError(429, 'rate.limited', {
    headers: { 'Retry-After': String(wait) },
    limit: `brake/${brake}`,
    message: `${brakeText[brake](factor)}. Bitte warte noch ${waitText(wait)}.`,
  });

export function checkLoginAllowed(attempt: LoginAttempt): void {
  const { store, factor, ip, now } = attempt;
  if (factor === 0) return;
  const site = ipv6SiteSubject(ip);
  if (site) {
    const wait = store.hit(
      [store.keyed('login/site', site, { ...siteLogins, limit: scaledLimit(siteLogins.limit, factor) }, now)],
      now,
      true,
    );
    if (wait > 0) throw limited(wait, 'login-site', factor);
  }
  const counters = failureCounters(attempt);
  const pressure = store.peek([counters.name, counters.board], now);
  if (pressure > 0 && store.peek([counters.address], now) > 0) throw limited(pressure, 'login-failures', factor);
}

export type LoginPressure = 'name' | 'board' | undefined;

/**
 * The failed-login pressure on the attempt's name, read before any hashing: it decides whether the
 * login needs a solved challenge (lib/registration/pow.ts loginNeedsWork). The name's own pressure
 * comes first.
 */
export function loginPressure(attempt: LoginAttempt): LoginPressure {
  if (attempt.factor === 0) return undefined;
  const counters = failureCounters(attempt);
  if (attempt.store.peek([counters.name], attempt.now) > 0) return 'name';
  if (attempt.store.peek([counters.board], attempt.now) > 0) return 'board';
  return undefined;
}

export function recordFailedLogin(attempt: LoginAttempt): void {
  if (attempt.factor === 0) return;
  const counters = failureCounters(attempt);
  attempt.store.hit([counters.name, counters.board, counters.address], attempt.now, true);
}
