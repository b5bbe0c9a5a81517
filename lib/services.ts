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
  limiter: RateLimiter;
  limits: LimitStore;
  passwords: Passwords;
  webauthn: WebAuthn;
  images: Images;
  tor: TorExitList;
  asn: AsnDb;
  impressions: ImpressionTally;
  searchThreads: SearchThreads;
  disk: DiskWatch;
  /**
   * What handlers may ask of the once-jobs (lib/jobs/once-jobs.ts), which run in this process or,
   * with BOARD_WORKERS > 1, in the cluster's primary (these then forward over IPC): each is absent
   * while its job is off; wake one after queueing its work.
   */
  previews?: { wake(): void };
  notifier?: Pick<Notifier, 'send'>;
  accountRemoval?: { wake(): void };
  threadReplies?: { wake(): void };
  /** Federation (lib/federation/), loaded on first use; absent when BOARD_FEDERATION=off, so Fedify is never loaded then. */
  federation?: FederationHandle;
  metrics?: BoardMetrics;
}
