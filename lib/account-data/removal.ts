import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { removeEntryOfDeletedAccount } from '../entries/entries.ts';

import { removeMedia } from '../media/files.ts';
import { anonymiseReportsOf } from '../moderation/reports.ts';
import { removeVotesOfUser } from '../entries/votes.ts';
import { logFailure } from '../log.ts';
import { startJobRuns } from '../host/job-runs.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * The background part of an account deletion (docs/API.md "POST /api/user/delete"): the
 * account's votes leave the tallies, its entries go (tombstones where others replied), its
 * reports become anonymous, its image files are removed. The work waits in pending_deletions,
 * so it resumes after a restart, and runs in slices: each one short transaction of about
 * `sliceMs` of work, the event loop free for requests in between. Several server processes may
 * run this at once: an account is claimed with a lease in a transaction, and every slice
 * re-reads what is left inside its own transaction, so two never undo each other.
 */

export interface RemovalOptions {
  /** Work per slice before it commits, in ms; a slice overruns it by one entry at most. */
  sliceMs?: number;
  pollMs?: number;
  paused?: boolean;
}

export interface AccountRemoval {
  wake(): void;
  resume(): void;
  stop(): Promise<void>;
  readonly slices: number;
  readonly busy: boolean;
}

/**
 * A claim lasts leaseSeconds and every slice renews it; after a crash another process (or the
 * restarted one) takes over. batchRows per statement are few enough to stay within a slice.
 */
const leaseSeconds = 15;
const batchRows = 200;

function claimAccount(db: Db, now: number): number | undefined {
  return db.one<{ uid: number }>(
    `UPDATE pending_deletions SET claimed_until = ?
     WHERE uid = (SELECT uid FROM pending_deletions WHERE claimed_until <= ? ORDER BY queued_at, uid LIMIT 1)
     RETURNING uid`,
    now + leaseSeconds,
    now,
  )?.uid;
}

/**
 * One slice for one account, in one transaction: votes first, then entries deepest first, then
 * reports, until `sliceMs` has passed. Returns the image files to remove and whether the account
 * is done (its pending row is then gone).
 */
export function removeAccountSlice(
  db: Db,
  uid: number,
  now: number,
  sliceMs: number,
): { files: string[]; done: boolean } {
  const deadline = performance.now() + sliceMs;
  return db.tx(() => {
    // The first statement writes: the transaction holds the write lock before it reads anything.
    if (db.run('UPDATE pending_deletions SET claimed_until = ? WHERE uid = ?', now + leaseSeconds, uid).changes === 0) {
      return { files: [], done: true };
    }
    const files: string[] = [];
    while (removeVotesOfUser(db, uid, batchRows) === batchRows)
      if (performance.now() > deadline) return { files, done: false };
    for (;;) {
      const batch = db.all<{ pid: number }>(
        'SELECT pid FROM entries WHERE uid = ? ORDER BY depth DESC, pid DESC LIMIT ?',
        uid,
        batchRows,
      );
      for (const { pid } of batch) {
        const file = removeEntryOfDeletedAccount(db, pid, now);
        if (file) files.push(file);
        if (performance.now() > deadline) return { files, done: false };
      }
      if (batch.length < batchRows) break;
    }
    while (anonymiseReportsOf(db, uid, batchRows) === batchRows)
      if (performance.now() > deadline) return { files, done: false };
    db.run('DELETE FROM pending_deletions WHERE uid = ?', uid);
    return { files, done: true };
  });
}

export function startAccountRemoval(app: JobDeps & { config: Config }, options: RemovalOptions = {}): AccountRemoval {
  const sliceMs = options.sliceMs ?? 15;
  let stopping = false;
  let paused = options.paused ?? false;
  let slices = 0;
  let current: number | undefined;

  async function work(): Promise<void> {
    for (
      current = claimAccount(app.db, app.clock.now());
      current !== undefined && !stopping;
      current = claimAccount(app.db, app.clock.now())
    ) {
      for (let done = false; !done && !stopping; ) {
        const slice = removeAccountSlice(app.db, current, app.clock.now(), sliceMs);
        slices++;
        done = slice.done;
        await removeMedia(app.config, slice.files, app.log);
        await yieldToRequests();
      }
    }
  }

  const runs = startJobRuns({
    work,
    failed: (err) => logFailure(app.log, 'account removal failed, retried later', err),
    pollMs: options.pollMs ?? 5_000,
    held: () => paused,
  });
  return {
    wake: runs.wake,
    resume() {
      paused = false;
      runs.wake();
    },
    async stop() {
      stopping = true;
      await runs.stop();
      try {
        // The next start (or another process) goes on at once instead of waiting for the lease.
        if (current !== undefined) app.db.run('UPDATE pending_deletions SET claimed_until = 0 WHERE uid = ?', current);
      } catch (err) {
        logFailure(app.log, 'account removal: cannot give the claim back', err);
      }
    },
    get slices() {
      return slices;
    },
    get busy() {
      return runs.busy;
    },
  };
}
