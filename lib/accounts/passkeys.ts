import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { maxPasskeysPerAccount } from '../product.ts';

/** An account's passkeys: the credentials its authenticators hold (docs/API.md "Passkeys"). */

export interface StoredPasskey {
  id: string;
  uid: number;
  credential_id: string;
  public_key: Buffer;
  counter: number;
  transports: string;
}

/** What the owner sees of a passkey: never the key. */
export interface PasskeyListItem {
  id: string;
  name: string;
  created_at: number;
  last_used: number;
  synced: number;
  backed_up: number;
}

export interface NewPasskey {
  uid: number;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: readonly string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
}

export function listPasskeys(db: Db, uid: number): PasskeyListItem[] {
  return db.all<PasskeyListItem>(
    `SELECT id, name, created_at, last_used, device_type = 'multiDevice' AS synced, backed_up
     FROM passkeys WHERE uid = ? ORDER BY created_at, id`,
    uid,
  );
}

/** The credential ids of the account, for the browser's exclude list (no second passkey on the same authenticator). */
export function credentialIdsOf(db: Db, uid: number): { id: string; transports: string }[] {
  return db.all<{ id: string; transports: string }>(
    'SELECT credential_id AS id, transports FROM passkeys WHERE uid = ? ORDER BY created_at',
    uid,
  );
}

export function findPasskeyByCredentialId(db: Db, credentialId: string): StoredPasskey | undefined {
  return db.one<StoredPasskey>(
    'SELECT id, uid, credential_id, public_key, counter, transports FROM passkeys WHERE credential_id = ?',
    credentialId,
  );
}

export type AddPasskeyResult = { id: string } | { refused: 'limit' | 'exists' };

export function addPasskey(db: Db, passkey: NewPasskey, now: number): AddPasskeyResult {
  return db.tx(() => {
    const count = db.one<{ n: number }>('SELECT count(*) AS n FROM passkeys WHERE uid = ?', passkey.uid)!.n;
    if (count >= maxPasskeysPerAccount) return { refused: 'limit' };
    if (db.one('SELECT 1 FROM passkeys WHERE credential_id = ?', passkey.credentialId)) return { refused: 'exists' };
    const id = randomBytes(16).toString('hex');
    db.run(
      `INSERT INTO passkeys (id, uid, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      passkey.uid,
      passkey.credentialId,
      Buffer.from(passkey.publicKey),
      passkey.counter,
      passkey.transports.join(','),
      passkey.deviceType,
      passkey.backedUp ? 1 : 0,
      passkey.name,
      now,
    );
    return { id };
  });
}

export interface PasskeyUse {
  id: string;
  newCounter: number;
  backedUp: boolean;
}

/**
 * Inside the transaction that accepts a passkey's signature: stores its new counter, backup flag
 * and time; false when the passkey was deleted meanwhile or its counter did not move forward (a
 * concurrent use, or a cloned authenticator: WebAuthn §6.1.1). A counter of 0 means the
 * authenticator keeps none.
 */
export function usePasskey(db: Db, uid: number, use: PasskeyUse, now: number): boolean {
  return (
    db.run(
      `UPDATE passkeys SET counter = ?, backed_up = ?, last_used = ?
       WHERE id = ? AND uid = ? AND (counter < ? OR (counter = 0 AND ? = 0))`,
      use.newCounter,
      use.backedUp ? 1 : 0,
      now,
      use.id,
      uid,
      use.newCounter,
      use.newCounter,
    ).changes === 1
  );
}

export function deletePasskey(db: Db, uid: number, id: string): boolean {
  return db.run('DELETE FROM passkeys WHERE id = ? AND uid = ?', id, uid).changes === 1;
}

/**
 * The account's WebAuthn user handle: random, made once, so an authenticator keeps one passkey
 * per account and the handle tells nothing about the account.
 */
export function userHandle(db: Db, uid: number): Buffer {
  return db.tx(() => {
    const found = db.one<{ handle: Buffer }>('SELECT handle FROM webauthn_users WHERE uid = ?', uid);
    if (found) return found.handle;
    const handle = randomBytes(32);
    db.run('INSERT INTO webauthn_users (uid, handle) VALUES (?, ?)', uid, handle);
    return handle;
  });
}

export function findUidByHandle(db: Db, handle: Buffer): number | undefined {
  return db.one<{ uid: number }>('SELECT uid FROM webauthn_users WHERE handle = ?', handle)?.uid;
}
