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
 * How a once-job that works off a queue in the database runs `work`: one run at a time, once more
 * when woken during a run (so work queued meanwhile is not missed), at the start and every `pollMs`
 * for what another process or a restart left. A failed run goes to `failed`; the next wake or poll
 * retries.
 */
export interface JobRuns {
  wake(): void;
  stop(): Promise<void>;
  readonly busy: boolean;
}

export function startJobRuns(options: {
  work: () => Promise<void>;
  failed: (err: unknown) => void;
  pollMs: number;
  held?: () => boolean;
}): JobRuns {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const run = () => {
    if (stopped || options.held?.()) return;
    if (running) {
      again = true;
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
