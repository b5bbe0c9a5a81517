import { emptyHeldMedia } from '../media/hold.ts';
import type { LimitStore } from '../limits/rate-limit.ts';
import { deleteExpiredResetLinks } from '../accounts/reset-links.ts';
import { deleteExpiredSessions } from '../accounts/sessions.ts';
import type { Config } from '../config.ts';
import { deleteExpiredRejections } from '../registration/applications.ts';
import { deleteStaleInvites } from '../registration/invites.ts';
import { deleteExpiredChallenges as deleteUsedPowChallenges } from '../registration/pow.ts';
import { reopenAfterQuiet } from '../registration/surge.ts';
import { deleteExpiredChallenges as deleteExpiredPasskeyChallenges } from '../accounts/webauthn-challenges.ts';
import { logFailure } from '../log.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * Hourly clean-up of rows that can no longer be used, also once at start (rate-limit rows of a
 * day that ended while the server was down go at once); returns the stop function.
 */
export function startHousekeeping(
  app: JobDeps & { limits: Pick<LimitStore, 'prune'>; mediaDir: string; config?: Config },
): () => void {
  const run = () => {
    try {
      const now = app.clock.now();
      deleteExpiredSessions(app.db, now);
      deleteExpiredResetLinks(app.db, now);
      deleteExpiredPasskeyChallenges(app.db, now);
      app.limits.prune(now);
      // The registration's tables stay bounded (rejected accounts past their time, dead invites,
      // used challenges), and a door the surge gate closed opens after its quiet period.
      deleteExpiredRejections(app.db, now);
      deleteStaleInvites(app.db, now);
      deleteUsedPowChallenges(app.db, now);
      if (app.config) reopenAfterQuiet(app.db, app.config, now);
    } catch (err) {
      logFailure(app.log, 'housekeeping failed', err);
    }
    // Files a killed backup kept in media/.held (lib/media/hold.ts) go once its hold is stale.
    if (app.mediaDir)
      void emptyHeldMedia(app.mediaDir).catch((err: unknown) =>
        logFailure(app.log, 'housekeeping: emptying media/.held failed', err),
      );
  };
  const first = setImmediate(run);
  const timer = setInterval(run, 3600_000);
  timer.unref();
  return () => {
    clearImmediate(first);
    clearInterval(timer);
  };
}
