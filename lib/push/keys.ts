import { createECDH } from 'node:crypto';
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
  const made = newVapidKeys();
  db.run(
    'INSERT INTO push_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    made.publicKey,
    made.privateKey,
    now,
  );
  return readKeys(db)!;
}

/** A P-256 pair as web-push's generateVAPIDKeys writes it: the raw public point and the 32-byte private key, base64url. */
function newVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const privateKey = Buffer.from(ecdh.getPrivateKey('hex').padStart(64, '0'), 'hex');
  return { publicKey: ecdh.getPublicKey('base64url'), privateKey: privateKey.toString('base64url') };
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
