import { createHash, randomBytes } from 'node:crypto';

/** A fresh secret token: 32 random bytes, base64url (sessions, reset links). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps instead of a token: its SHA-256, so a leaked database leaks no sessions. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isTokenShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}
