import type { Clock } from '../clock.ts';
import type { Db } from '../db/db.ts';
import type { Log } from '../log.ts';

/** What a background job needs and nothing more: the database, the time and the log. */
export interface JobDeps {
  db: Db;
  clock: Clock;
  log: Log;
}

/**
 * How a once-job that works off a queue in the database runs its `work`: one run at a time; a
 * wake while it runs makes it run once more when done (so work queued meanwhile is never
 * missed); at the start and every `pollMs` besides, for what another process or a run before a
 * restart left queued. A run's failure goes to `failed`, and the next wake or poll tries again.
 */
export interface JobRuns {
  /** Runs the work at the next turn of the event loop (now, when the job is idle). */
  wake(): void;
  /** No more runs start; resolves when the one under way has ended. */
  stop(): Promise<void>;
  /** True while a run is under way. */
  readonly busy: boolean;
}

export function startJobRuns(options: {
  work: () => Promise<void>;
  failed: (err: unknown) => void;
  pollMs: number;
  /** While true, wakes and polls start nothing (a job paused by a test, or stopping). */
  held?: () => boolean;
}): JobRuns {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const run = () => {
    if (stopped || options.held?.()) return;
    if (running) {
      again = true; // a wake while working: look once more when done
      return;
    }
    running = options
      .work()
      .catch(options.failed)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          setImmediate(run);
        }
      });
  };

  const timer = setInterval(run, options.pollMs);
  timer.unref();
  setImmediate(run);
  return {
    wake() {
      setImmediate(run);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    get busy() {
      return running !== undefined;
    },
  };
}
