import webPush from 'web-push';
import type { Db } from '../db/db.ts';

/**
 * The board's VAPID key pair (RFC 8292): made once, at the first start (or the first request that
 * needs it, whichever comes first), kept in the database (push_keys) so every process and every
 * restart signs with the same key; a browser's subscription is bound to it. Never written to the
 * repository or a log line; a backup holds it like the password hashes.
 */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export function vapidKeys(db: Db, now: number): VapidKeys {
  const stored = readKeys(db);
  if (stored) return stored;
  const made = webPush.generateVAPIDKeys();
  db.run(
    'INSERT INTO push_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    made.publicKey,
    made.privateKey,
    now,
  );
  return readKeys(db)!;
}

function readKeys(db: Db): VapidKeys | undefined {
  return db.one<VapidKeys>('SELECT public_key AS publicKey, private_key AS privateKey FROM push_keys WHERE id = 1');
}

/**
 * The `sub` claim: how a push service reaches the operator. BOARD_ORIGIN when it is https (every
 * real deployment); a development or test board on http names itself by a mailto: address
 * instead, since push services take only https: and mailto: subjects.
 */
export function vapidSubject(origin: string): string {
  const url = new URL(origin);
  return url.protocol === 'https:' ? url.origin : `mailto:board@${url.hostname}`;
}
