import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { settleWithin } from '../host/settle.ts';
import { followerBatch } from '../product.ts';
import { logFailure } from '../log.ts';

import { startJobRuns } from '../host/job-runs.ts';
import { tellFollowersBatch } from './thread-replies.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * The once-job that tells a reply's followers after its create committed
 * (lib/notifications/thread-replies.ts says why and how): woken by the create, and every pollMs for
 * what a stopped process left, it works off thread_reply_fanout oldest reply first, one batch per
 * transaction, with the event loop free between two. One runs per board; each batch re-reads its
 * row inside its own transaction all the same.
 */

export interface FanoutOptions {
  batchSize?: number;
  pollMs?: number;
  beforeBatch?: () => Promise<void>;
}

export interface FanoutJob {
  wake(): void;
  stop(): Promise<void>;
  readonly batches: number;
}

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
