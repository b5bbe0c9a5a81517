import { exportJwk, generateCryptoKeyPair, importJwk } from '@fedify/fedify';
import type { webcrypto } from 'node:crypto';
import type { Db } from '../db/db.ts';

/**
 * Each actor's key pairs (table federation_keys), made on first need and kept: an RSA pair for
 * HTTP signatures (Mastodon and NodeBB read its `publicKeyPem` for draft-cavage signatures, and
 * RFC 9421 takes it too), and an Ed25519 pair for the object proofs Fedify makes where it does.
 * The private halves never leave the process (the delivery thread gets them in memory): no log
 * line, no export, no answer names them.
 */

type CryptoKeyPair = webcrypto.CryptoKeyPair;

export type KeyAlgorithm = 'RSASSA-PKCS1-v1_5' | 'Ed25519';
export const keyAlgorithms: readonly KeyAlgorithm[] = ['RSASSA-PKCS1-v1_5', 'Ed25519'];

export const boardKeyOwner = 0;

/** A made pair per owner and algorithm, in this process; the database holds them across restarts. */
const cache = new WeakMap<Db, Map<string, Promise<CryptoKeyPair>>>();

/**
 * The owner's pair for this algorithm: from the table, else made now and stored. Two processes that
 * make one at the same moment both insert OR IGNORE and read back the one that won, so an actor
 * never has two keys.
 */
export function keyPairOf(db: Db, ownerUid: number, algorithm: KeyAlgorithm, now: number): Promise<CryptoKeyPair> {
  let pairs = cache.get(db);
  if (!pairs) cache.set(db, (pairs = new Map()));
  const key = `${ownerUid}/${algorithm}`;
  let pair = pairs.get(key);
  if (!pair) {
    pair = loadOrMake(db, ownerUid, algorithm, now);
    pair.catch(() => pairs.delete(key));
    pairs.set(key, pair);
  }
  return pair;
}

async function loadOrMake(db: Db, ownerUid: number, algorithm: KeyAlgorithm, now: number): Promise<CryptoKeyPair> {
  const select = 'SELECT private_jwk, public_jwk FROM federation_keys WHERE owner_uid = ? AND algorithm = ?';
  let row = db.one<{ private_jwk: string; public_jwk: string }>(select, ownerUid, algorithm);
  if (!row) {
    const made = await generateCryptoKeyPair(algorithm);
    db.run(
      `INSERT OR IGNORE INTO federation_keys (owner_uid, algorithm, private_jwk, public_jwk, created_at)
       VALUES (?, ?, ?, ?, ?)`,
      ownerUid,
      algorithm,
      JSON.stringify(await exportJwk(made.privateKey)),
      JSON.stringify(await exportJwk(made.publicKey)),
      now,
    );
    row = db.one<{ private_jwk: string; public_jwk: string }>(select, ownerUid, algorithm)!;
  }
  return {
    privateKey: await importJwk(JSON.parse(row.private_jwk), 'private'),
    publicKey: await importJwk(JSON.parse(row.public_jwk), 'public'),
  };
}

/** Both pairs of an actor, RSA first (Fedify signs HTTP requests with the first RSA pair). */
export function actorKeyPairs(db: Db, ownerUid: number, now: number): Promise<CryptoKeyPair[]> {
  return Promise.all(keyAlgorithms.map((algorithm) => keyPairOf(db, ownerUid, algorithm, now)));
}

/** Whether an account has federation keys (its export says so, never what they are). */
export function hasFederationKeys(db: Db, uid: number): boolean {
  return db.one('SELECT 1 FROM federation_keys WHERE owner_uid = ?', uid) !== undefined;
}
