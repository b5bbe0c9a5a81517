import { randomBytes, randomInt } from 'node:crypto';
import type { Challenge, Payload } from 'altcha-lib';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { ApiError } from '../errors.ts';
import type { LoginPressure } from '../limits/login-limits.ts';
import { maxUsedChallenges, powChallengeSeconds } from '../product.ts';
import { fieldMessages } from '../messages.ts';
import { readBoardState, writeBoardState } from './mode.ts';

/**
 * Proof of work (docs/API.md "Proof of work"), in ALTCHA's v2 format with altcha-lib: a challenge
 * is PBKDF2/SHA-256 over a random nonce and a counter; the server picks the counter (uniformly from
 * 0 to the cost) and publishes only the first half of its key, so a solver tries counters until the
 * key matches. The work is bounded (at most `cost` + 1 tries) and cannot be shortcut;
 * checking a solution is one HMAC. Challenges are HMAC-signed with a key kept in the database (every
 * server process and restart agree), expire after 10 minutes and are good for one request.
 */

export const powAlgorithm = 'PBKDF2/SHA-256';
/** PBKDF2 iterations per counter: one Web Crypto call does enough work that its overhead in the browser is small. */
export const powIterations = 250;
/**
 * BOARD_POW=1, and every challenge's cost while BOARD_POW is off: about half a second on a
 * mid-range phone (bench/results.md "Proof of work").
 */
export const recommendedPowCost = 3000;

export function powCost(config: Pick<Config, 'pow'>): number {
  return config.pow === 1 ? recommendedPowCost : config.pow;
}

/** The cost of every challenge handed out: BOARD_POW's, or the recommended one while it is off (a login under attack still asks). */
export function challengeCost(config: Pick<Config, 'pow'>): number {
  return powCost(config) || recommendedPowCost;
}

/**
 * Whether a password login must bring a solved challenge: while its name is under failed-login
 * pressure (unless BOARD_LOGIN_POW=0), and with BOARD_POW on while the whole board is. Why: fresh
 * addresses pass every per-address brake, so a botnet could guess one name's password at no cost.
 */
export function loginNeedsWork(config: Pick<Config, 'pow' | 'loginPow'>, pressure: LoginPressure): boolean {
  if (!config.loginPow || pressure === undefined) return false;
  return pressure === 'name' || powCost(config) > 0;
}

let altchaLoaded: Promise<[typeof import('altcha-lib'), typeof import('altcha-lib/algorithms/pbkdf2')]> | undefined;
const loadAltcha = () => (altchaLoaded ??= Promise.all([import('altcha-lib'), import('altcha-lib/algorithms/pbkdf2')]));

interface PowKeys {
  challenge: string;
  key: string;
}

let cachedKeys: { raw: Db['raw']; keys: PowKeys } | undefined;

function powKeys(db: Db): PowKeys {
  if (cachedKeys?.raw === db.raw) return cachedKeys.keys;
  const keys = db.tx(() => {
    const stored = readBoardState(db, 'pow_keys');
    if (stored) return JSON.parse(stored) as PowKeys;
    const fresh = { challenge: randomBytes(32).toString('hex'), key: randomBytes(32).toString('hex') };
    writeBoardState(db, 'pow_keys', JSON.stringify(fresh));
    return fresh;
  });
  cachedKeys = { raw: db.raw, keys };
  return keys;
}

export async function newChallenge(db: Db, cost: number, now: number): Promise<Challenge> {
  const [{ createChallenge }, { deriveKey }] = await loadAltcha();
  const keys = powKeys(db);
  return createChallenge({
    algorithm: powAlgorithm,
    cost: powIterations,
    // Uniform over the whole range: a search from any start needs half the cost's tries on average.
    counter: randomInt(cost + 1),
    data: { max: cost },
    deriveKey,
    expiresAt: now + powChallengeSeconds,
    hmacSignatureSecret: keys.challenge,
    hmacKeySignatureSecret: keys.key,
  });
}

const invalid = () => new ApiError(400, 'pow.invalid', { fields: { altcha: fieldMessages.altcha } });

function decodePayload(raw: string): Payload | undefined {
  if (!raw || raw.length > 4096) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as Payload;
    const parameters = payload?.challenge?.parameters;
    if (typeof parameters !== 'object' || parameters === null || typeof payload.challenge.signature !== 'string')
      return undefined;
    if (typeof payload.solution !== 'object' || payload.solution === null) return undefined;
    return payload;
  } catch {
    return undefined;
  }
}

/**
 * Checks a solved challenge and uses it up, or throws 400 pow.invalid with error.fields.altcha:
 * missing, malformed, expired (by the board's clock), signed by someone else, wrongly solved, or
 * used before (a replay answers like a wrong solution).
 */
export async function useSolvedChallenge(db: Db, raw: string, now: number): Promise<void> {
  const payload = decodePayload(raw);
  const expiresAt = payload?.challenge.parameters.expiresAt;
  if (!payload || typeof expiresAt !== 'number' || expiresAt <= now) throw invalid();
  if (payload.challenge.parameters.algorithm !== powAlgorithm) throw invalid();
  const [{ verifySolution }, { deriveKey }] = await loadAltcha();
  const keys = powKeys(db);
  let verified = false;
  try {
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: keys.challenge,
      hmacKeySignatureSecret: keys.key,
    });
    verified = result.verified;
  } catch {
    verified = false;
  }
  if (!verified) throw invalid();
  const signature = payload.challenge.signature!;
  const used = db.tx(() => {
    db.run('DELETE FROM used_challenges WHERE expires <= ?', now);
    if (db.one('SELECT 1 FROM used_challenges LIMIT 1 OFFSET ?', maxUsedChallenges - 1)) return false;
    return (
      db.run(
        'INSERT INTO used_challenges (signature, expires) VALUES (?, ?) ON CONFLICT (signature) DO NOTHING',
        signature,
        expiresAt,
      ).changes === 1
    );
  });
  if (!used) throw invalid();
}

export function deleteExpiredChallenges(db: Db, now: number): number {
  return db.run('DELETE FROM used_challenges WHERE expires <= ?', now).changes;
}
