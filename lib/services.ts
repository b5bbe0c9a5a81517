import type { AccountRemoval } from './account-removal.ts';
import type { AsnDb } from './asn.ts';
import type { Config } from './config.ts';
import type { ImpressionTally } from './impressions.ts';
import type { JobDeps } from './job-deps.ts';
import type { BoardMetrics } from './metrics/board-metrics.ts';
import type { Notifier } from './notify.ts';
import type { PreviewQueue } from './preview/queue.ts';
import type { LimitStore, RateLimiter } from './rate-limit.ts';
import type { SearchBackfill } from './search/backfill.ts';
import type { TorExitList } from './tor.ts';

/** Long-lived things every handler may use, built once by createApp (lib/app.ts). */
export interface Services extends JobDeps {
  config: Config;
  /** SPEC's per-address limits (login, newuser, reset, report). */
  limiter: RateLimiter;
  /** The counters of every rate limit, in SQLite (lib/rate-limit.ts). */
  limits: LimitStore;
  tor: TorExitList;
  /** IP-to-ASN lookups for the statistics, loaded in the background. */
  asn: AsnDb;
  /** Impressions and visitors counted in memory, flushed every few seconds. */
  impressions: ImpressionTally;
  /** The link-preview queue; absent when BOARD_PREVIEW=0. */
  previews?: PreviewQueue;
  /** The background sender of report messages; absent when BOARD_NOTIFY_URL is empty. */
  notifier?: Notifier;
  /** The background part of account deletions (set by createApp once the services exist). */
  accountRemoval?: AccountRemoval;
  /** The search index's backfill of entries older than the index (set by createApp). */
  searchBackfill?: SearchBackfill;
  /** The Prometheus metrics (lib/metrics/); absent when BOARD_METRICS_PORT is empty. */
  metrics?: BoardMetrics;
}
