import type { JobDeps } from './host/job-runs.ts';
import type { AsnDb } from './stats/asn.ts';
import type { Config } from './config.ts';
import type { DiskWatch } from './host/disk-watch.ts';
import type { FederationHandle } from './federation/runtime.ts';
import type { Images } from './media/images.ts';
import type { ImpressionTally } from './stats/impressions.ts';
import type { BoardMetrics } from './host/metrics-recorder.ts';
import type { Notifier } from './outgoing/operator-webhook.ts';
import type { Passwords } from './accounts/passwords.ts';
import type { WebAuthn } from './accounts/webauthn.ts';
import type { LimitStore, RateLimiter } from './limits/rate-limit.ts';
import type { SearchThreads } from './search/threads.ts';
import type { TorExitList } from './limits/tor.ts';

/** Long-lived things every handler may use, built once by createApp (lib/app.ts). */
export interface Services extends JobDeps {
  config: Config;
  /** SPEC's per-address limits (login, newuser, reset, report). */
  limiter: RateLimiter;
  /** The counters of every rate limit, in SQLite (lib/limits/rate-limit.ts). */
  limits: LimitStore;
  /** Password hashing and checking (lib/accounts/passwords.ts). */
  passwords: Passwords;
  /** Passkey signatures and attestations, checked by @simplewebauthn/server (lib/accounts/webauthn.ts). */
  webauthn: WebAuthn;
  /** Entry images and avatars, scaled by sharp (lib/media/images.ts). */
  images: Images;
  tor: TorExitList;
  /** IP-to-ASN lookups for the statistics, loaded in the background. */
  asn: AsnDb;
  /** Impressions and visitors counted in memory, flushed every few seconds. */
  impressions: ImpressionTally;
  /** The threads that run the search index's match, off the event loop (lib/search/threads.ts). */
  searchThreads: SearchThreads;
  /** The data volume: writes refused for lack of space (507), free space (lib/host/disk-watch.ts). */
  disk: DiskWatch;
  /**
   * What handlers may ask of the once-jobs (lib/jobs/once-jobs.ts), which run in this process or, with
   * BOARD_WORKERS > 1, in the cluster's primary (then these forward over IPC):
   * the link-preview queue (absent when BOARD_PREVIEW=0), wake it after queueing a job;
   */
  previews?: { wake(): void };
  /** the sender of report messages (absent when BOARD_NOTIFY_URL is empty); */
  notifier?: Pick<Notifier, 'send'>;
  /** the background part of account deletions, woken after one is queued; */
  accountRemoval?: { wake(): void };
  /** the telling of a new reply's followers, woken after its create (lib/notifications/fan-out-job.ts). */
  threadReplies?: { wake(): void };
  /** Federation (lib/federation/), loaded on first use; absent when BOARD_FEDERATION=off, so Fedify is never loaded then. */
  federation?: FederationHandle;
  /** The Prometheus metrics (lib/metrics/); absent when BOARD_METRICS_PORT is empty. */
  metrics?: BoardMetrics;
}
