import { ApiError } from '../errors.ts';
import { ipv6SiteSubject, rateLimitSubject } from '../ip/address.ts';
import { scaledLimit, waitText, type Counter, type LimitStore } from './rate-limit.ts';
import { usernameKey } from '../text/usernames.ts';

/**
 * The login brakes besides SPEC's 20 a minute per address (docs/API.md "Rate limits"), all off
 * with BOARD_LIMITS=0 and checked before any hashing work:
 * - an IPv6 site (/48) gets 60 logins a minute: a dozen /64s of one site are one client;
 * - failed logins count per user name (normalised; existing or not, so the answer tells nothing)
 *   and board-wide. Once a name has 20 failures in a minute, or the board 300, an address that
 *   has failed a login itself in the last 10 minutes waits (429 rate.limited); an address
 *   without a failure still gets its tries, for an attacked name each against a solved challenge
 *   (loginPressure). Why so: guessing from many addresses is held, and the owner of an attacked
 *   name, or any honest user during a flood, is not locked out. 20 a minute per name is what SPEC
 *   allows one address anyway, so no honest client is held sooner.
 */
const minute = 60;
const siteLogins = { limit: 60, windowSeconds: minute };
const failuresPerName = { limit: 20, windowSeconds: minute };
const failuresBoardWide = { limit: 300, windowSeconds: minute };
/** An address with a failed login counts as a suspect this long. */
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

/** What each brake says it is (every 429 names its limit). */
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

/** Counts the attempt against its IPv6 site and refuses it (429) when a brake holds; before hashing. */
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

/** Which failed logins' worth of the last minute `attempt` meets: its name's ('name'), the board's ('board'), or none. */
export type LoginPressure = 'name' | 'board' | undefined;

/**
 * The failed-login pressure on the attempt's name, read before any hashing work: what decides
 * whether the login needs a solved challenge (lib/registration/pow.ts loginNeedsWork). A name's
 * own pressure comes first, as it is what the default asks work for.
 */
export function loginPressure(attempt: LoginAttempt): LoginPressure {
  if (attempt.factor === 0) return undefined;
  const counters = failureCounters(attempt);
  if (attempt.store.peek([counters.name], attempt.now) > 0) return 'name';
  if (attempt.store.peek([counters.board], attempt.now) > 0) return 'board';
  return undefined;
}

/** A failed login: counts for the name, the board and the address. */
export function recordFailedLogin(attempt: LoginAttempt): void {
  if (attempt.factor === 0) return;
  const counters = failureCounters(attempt);
  attempt.store.hit([counters.name, counters.board, counters.address], attempt.now, true);
}
