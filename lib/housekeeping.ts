import type { JobDeps } from './job-deps.ts';
import { deleteExpiredResetLinks } from './reset-links.ts';
import { deleteExpiredSessions } from './sessions.ts';

/** Hourly clean-up of rows that can no longer be used; returns the stop function. */
export function startHousekeeping(app: JobDeps): () => void {
  const run = () => {
    try {
      const now = app.clock.now();
      deleteExpiredSessions(app.db, now);
      deleteExpiredResetLinks(app.db, now);
    } catch (err) {
      app.log(`housekeeping failed: ${(err as Error).message}`);
    }
  };
  const timer = setInterval(run, 3600_000);
  timer.unref();
  return () => clearInterval(timer);
}
