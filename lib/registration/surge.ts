import { isLocalAccount } from '../accounts/users.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { maxWaveAccounts, surgeQuietWindows } from '../product.ts';
import { scaledLimit } from '../limits/rate-limit.ts';
import { administrator } from '../modlog/modlog.ts';
import type { Notifier } from '../outgoing/operator-webhook.ts';
import { readBoardState, registrationInForce, setRegistrationMode, writeBoardState } from './mode.ts';

/**
 * The surge gate (docs/API.md "The surge gate"): when more accounts are created board-wide in a
 * window (an hour) than BOARD_REGISTRATION_SURGE allows, open registration switches to approval by
 * itself, so a botnet of a thousand addresses gets no more than the threshold in before the door
 * closes. It opens again after a quiet period, or when a moderator opens it.
 */

export function surgeThreshold(config: Pick<Config, 'registrationSurge' | 'limitsFactor'>): number {
  const { accounts } = config.registrationSurge;
  if (accounts === 0 || config.limitsFactor === 0) return 0;
  return scaledLimit(accounts, config.limitsFactor);
}

/** Accounts made since then; a remote author's row is no registration (another server's people vote and write). */
function accountsSince(db: Db, since: number): number {
  return db.one<{ n: number }>(`SELECT count(*) AS n FROM users WHERE created_at > ? AND ${isLocalAccount}`, since)!.n;
}

export interface LastSurge {
  at: number;
  accounts: number;
  windowSeconds: number;
}

export function lastSurge(db: Db): LastSurge | undefined {
  const stored = readBoardState(db, 'last_surge');
  return stored ? (JSON.parse(stored) as LastSurge) : undefined;
}

/**
 * Inside a registration's transaction in open mode: true when the window is full, so this account
 * must wait. The first such registration switches the door to approval (modlog row, webhook message).
 */
export function surgeSwitch(app: { db: Db; config: Config; notifier?: Pick<Notifier, 'send'> }, now: number): boolean {
  const { db, config } = app;
  const threshold = surgeThreshold(config);
  if (threshold === 0) return false;
  const state = registrationInForce(db, config);
  if (state.mode !== 'open') return false;
  const { windowSeconds } = config.registrationSurge;
  // Only accounts after a moderator's last decision count: a door opened by hand stays open a window.
  const accounts = accountsSince(db, Math.max(now - windowSeconds, state.since));
  if (accounts < threshold) return false;
  const minutes = Math.round(windowSeconds / 60);
  setRegistrationMode(
    db,
    config,
    { mode: 'approval', setBy: 'surge', note: `${accounts} neue Konten in ${minutes} Minuten` },
    administrator,
    now,
  );
  writeBoardState(db, 'last_surge', JSON.stringify({ at: now, accounts, windowSeconds } satisfies LastSurge));
  app.notifier?.send({ about: 'surge', accounts });
  return true;
}

export function reopenAfterQuiet(db: Db, config: Config, now: number): boolean {
  const state = registrationInForce(db, config);
  if (state.setBy !== 'surge') return false;
  const { windowSeconds } = config.registrationSurge;
  if (now - state.since < surgeQuietWindows * windowSeconds) return false;
  if (accountsSince(db, now - windowSeconds) * 2 >= Math.max(1, surgeThreshold(config))) return false;
  return setRegistrationMode(
    db,
    config,
    // The gate closes only an open door, so open is what it gives back.
    { mode: 'open', setBy: 'moderator', note: 'Ansturm vorbei' },
    administrator,
    now,
  );
}

export function waveAccounts(
  db: Db,
  surge: LastSurge,
): { username: string; created_at: number; status: string; banned: boolean }[] {
  return db
    .all<{ username: string; created_at: number; status: string; banned_until: number }>(
      `SELECT username, created_at, status, banned_until FROM users
       WHERE created_at > ? AND created_at <= ? AND ${isLocalAccount} ORDER BY created_at, uid LIMIT ?`,
      surge.at - surge.windowSeconds,
      surge.at,
      maxWaveAccounts,
    )
    .map(({ banned_until, status, ...rest }) => ({
      ...rest,
      status: status || 'active',
      banned: banned_until !== 0,
    }));
}
