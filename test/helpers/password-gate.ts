import assert from 'node:assert/strict';
import { scryptPasswords, type Passwords } from '../../lib/passwords.ts';

/** A request held after its password work, until the test lets it go on. */
export interface HeldRequest {
  /**
   * Settles once `request`'s scrypt work is done and it waits here; fails if it answered before
   * getting here (so a test on code that answers early fails instead of waiting for ever).
   */
  reachedBy(request: Promise<{ status: number; text: string }>): Promise<void>;
  release(): void;
}

/**
 * Real scrypt with a gate behind it, for the races of a request in flight (docs/SECURITY.md
 * "Races with a request in flight"): `holdNext('verify')` holds the next password check after it
 * has run, `holdNext('hash')` the next new hash, until `release()`. Every other call passes
 * through. Why here and not a sleep: the test decides the order of events, so it proves the same
 * thing on any machine.
 */
export function passwordGate(): { passwords: Passwords; holdNext(kind: keyof Passwords): HeldRequest; releaseAll(): void } {
  const holds: Record<keyof Passwords, { arrive(): void; released: Promise<void> }[]> = { verify: [], hash: [] };
  const releases = new Set<() => void>();
  const gate = async (kind: keyof Passwords) => {
    const hold = holds[kind].shift();
    if (!hold) return;
    hold.arrive();
    await hold.released;
  };
  return {
    passwords: {
      async verify(...args) {
        const matches = await scryptPasswords.verify(...args);
        await gate('verify');
        return matches;
      },
      async hash(...args) {
        const hash = await scryptPasswords.hash(...args);
        await gate('hash');
        return hash;
      },
    },
    holdNext(kind) {
      let arrive!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => { arrive = resolve; });
      const released = new Promise<void>((resolve) => { release = resolve; });
      releases.add(release);
      holds[kind].push({ arrive, released });
      let arrived = false;
      void reached.then(() => { arrived = true; });
      const reachedBy = (request: Promise<{ status: number; text: string }>) => Promise.race([
        reached,
        request.then((answer) => {
          if (!arrived) assert.fail(`answered before it reached the gate: ${answer.status} ${answer.text}`);
        }),
      ]);
      return { reachedBy, release };
    },
    /** After each test, so that a failed one leaves no request held and no hold waiting for the next. */
    releaseAll() {
      holds.verify.length = 0;
      holds.hash.length = 0;
      for (const release of releases) release();
      releases.clear();
    },
  };
}
