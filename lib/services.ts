import type { AsnDb } from './asn.ts';
import type { Config } from './config.ts';
import type { Images } from './images.ts';
import type { ImpressionTally } from './impressions.ts';
import type { JobDeps } from './job-deps.ts';
import type { BoardMetrics } from './metrics/recorder.ts';
import type { Notifier } from './notify.ts';
import type { Passwords } from './passwords.ts';
import type { LimitStore, RateLimiter } from './rate-limit.ts';
import type { SearchThreads } from './search/threads.ts';
import type { TorExitList } from './tor.ts';

/** Long-lived things every handler may use, built once by createApp (lib/app.ts). */
export interface Services extends JobDeps {
  config: Config;
  /** SPEC's per-address limits (login, newuser, reset, report). */
  limiter: RateLimiter;
  /** The counters of every rate limit, in SQLite (lib/rate-limit.ts). */
  limits: LimitStore;
  /** Password hashing and checking (lib/passwords.ts). */
  passwords: Passwords;
  /** Entry images and avatars, scaled by sharp (lib/images.ts). */
  images: Images;
  tor: TorExitList;
  /** IP-to-ASN lookups for the statistics, loaded in the background. */
  asn: AsnDb;
  /** Impressions and visitors counted in memory, flushed every few seconds. */
  impressions: ImpressionTally;
  /** The threads that run the search index's match, off the event loop (lib/search/threads.ts). */
  searchThreads: SearchThreads;
  /**
   * What handlers may ask of the once-jobs (lib/once-jobs.ts), which run in this process or, with
   * BOARD_WORKERS > 1, in the cluster's primary (then these forward over IPC):
   * the link-preview queue (absent when BOARD_PREVIEW=0), wake it after queueing a job;
   */
  previews?: { wake(): void };
  /** the sender of report messages (absent when BOARD_NOTIFY_URL is empty); */
  notifier?: Pick<Notifier, 'send'>;
  /** the background part of account deletions, woken after one is queued. */
  accountRemoval?: { wake(): void };
  /** The Prometheus metrics (lib/metrics/); absent when BOARD_METRICS_PORT is empty. */
  metrics?: BoardMetrics;
}
