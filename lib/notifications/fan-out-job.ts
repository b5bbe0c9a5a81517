import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { settleWithin } from '../host/settle.ts';
import { followerBatch } from '../product.ts';
import { logFailure } from '../log.ts';

import { startJobRuns } from '../host/job-runs.ts';
import { tellFollowersBatch } from './thread-replies.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * The once-job that tells a reply's followers after its create committed (lib/notifications/
 * thread-replies.ts says why and how): woken by the create, it works off thread_reply_fanout
 * oldest reply first, one batch per transaction with the event loop free for requests between
 * two, until the queue is empty. It also looks every pollMs, for what a stopped or crashed
 * process left queued. One runs per board (in the cluster's primary), so batches never race;
 * each re-reads its row inside its own transaction all the same.
 */

export interface FanoutOptions {
  /** Followers per transaction. Default followerBatch (lib/product.ts). */
  batchSize?: number;
  /** How often the queue is looked at without a wake. Default 5 s. */
  pollMs?: number;
  /** Tests: awaited before each batch, so a test holds the job between two batches. */
  beforeBatch?: () => Promise<void>;
}

export interface FanoutJob {
  /** A reply was queued: start now. */
  wake(): void;
  /** Stops after the batch in progress; the rest stays queued for the next start. */
  stop(): Promise<void>;
  /** Batches committed since the start (tests, monitoring). */
  readonly batches: number;
}

/** How long stop() waits for a batch held by a test's gate. */
const stopGraceMs = 2_000;

export function startFanoutJob(app: JobDeps, options: FanoutOptions = {}): FanoutJob {
  const size = options.batchSize ?? followerBatch;
  let stopping = false;
  let batches = 0;

  async function work(): Promise<void> {
    while (!stopping) {
      await options.beforeBatch?.();
      if (stopping) return;
      if (!tellFollowersBatch(app.db, size)) return;
      batches++;
      await yieldToRequests();
    }
  }

  const runs = startJobRuns({
    work,
    failed: (err) => logFailure(app.log, 'telling followers failed, retried later', err),
    pollMs: options.pollMs ?? 5_000,
  });
  return {
    wake: runs.wake,
    async stop() {
      stopping = true;
      await settleWithin([runs.stop()], stopGraceMs);
    },
    get batches() {
      return batches;
    },
  };
}
