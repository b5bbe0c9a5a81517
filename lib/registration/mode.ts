import type { Config, RegistrationMode } from '../config.ts';
import type { Db } from '../db/db.ts';
import { writeModlog, type ActorUid } from '../modlog/modlog.ts';
import { registrationReason } from '../../web/static/modlog-words.js';

/**
 * How people get in right now (docs/API.md "Registration"): BOARD_REGISTRATION, unless a
 * moderator (or the administrator) set another mode, or the surge gate switched open registration
 * to approval. The override lives in board_state, so every server process and board-admin agree.
 */

export type ModeSource = 'config' | 'moderator' | 'operator' | 'surge';

export interface ModeInForce {
  mode: RegistrationMode;
  setBy: ModeSource;
  since: number;
}

export function readBoardState(db: Db, name: string): string | undefined {
  return db.one<{ value: string }>('SELECT value FROM board_state WHERE name = ?', name)?.value;
}

export function writeBoardState(db: Db, name: string, value: string): void {
  db.run(
    'INSERT INTO board_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    name,
    value,
  );
}

const stateKey = 'registration';

export function registrationInForce(db: Db, config: Pick<Config, 'registration'>): ModeInForce {
  const stored = readBoardState(db, stateKey);
  if (stored) {
    const parsed = JSON.parse(stored) as ModeInForce;
    // BOARD_REGISTRATION changed since: the configured mode is the new one.
    return parsed.setBy === 'config' ? { ...parsed, mode: config.registration } : parsed;
  }
  return { mode: config.registration, setBy: 'config', since: 0 };
}

/**
 * Sets the mode in force and logs it (public: the board's door is everyone's business). A mode set
 * by a moderator stays until someone changes it; setting the configured mode again hands the door
 * back to BOARD_REGISTRATION (and to the surge gate). Returns false when that mode was in force already.
 */
export function setRegistrationMode(
  db: Db,
  config: Pick<Config, 'registration'>,
  change: { mode: RegistrationMode; setBy: Exclude<ModeSource, 'config'>; note?: string },
  actor: ActorUid,
  now: number,
): boolean {
  return db.tx(() => {
    const current = registrationInForce(db, config);
    const byHand = change.setBy !== 'surge';
    const takesOverSurge = current.setBy === 'surge' && byHand;
    if (current.mode === change.mode && !takesOverSurge) return false;
    const setBy = byHand && change.mode === config.registration ? 'config' : change.setBy;
    writeBoardState(db, stateKey, JSON.stringify({ mode: change.mode, setBy, since: now } satisfies ModeInForce));
    writeModlog(db, actor, { action: 'registration', reason: registrationReason(change.mode, change.note) }, now);
    return true;
  });
}
