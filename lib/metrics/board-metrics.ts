import { statSync } from 'node:fs';
import { deliveryState } from '../federation/outbox.ts';
import { createRequire } from 'node:module';
import type { Histogram, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { DiskWatch } from '../host/disk-watch.ts';
import { mediaUsage, mediaUsageMaxAgeSeconds } from '../media/usage.ts';
import type { RunningJobs } from '../jobs/once-jobs.ts';
import { countDueJobs } from '../preview/store.ts';
import { countAllOpenReports } from '../moderation/reports.ts';
import type { Services } from '../services.ts';
import type { BoardMetrics } from '../host/metrics-recorder.ts';
import type { JobDeps } from '../host/job-runs.ts';
import { responsesOf } from '../http/response-cache.ts';

/*
 * The board's Prometheus metrics (docs/OPERATIONS.md "Metrics"), in one registry per process. Most values are
 * read when Prometheus scrapes (collect callbacks over plain counters the code keeps anyway, a
 * file size, one indexed count); only the request histogram and the refusal counter are written
 * on the request path, each a cached child's observe or inc.
 *
 * With BOARD_WORKERS > 1 (lib/process/cluster/): every worker keeps the request metrics in this registry,
 * labelled worker="1".."N", and hands it to prom-client's AggregatorRegistry; the metrics listener
 * runs in the primary, which answers AggregatorRegistry.clusterMetrics() (per-worker series, as
 * the label keeps them apart) followed by its own registry: the metrics read from the shared
 * database and the once-jobs (defineJobMetrics, read once, not once per worker), the machine's
 * hashing, image and search slots, and its own process figures under board_primary_.
 *
 * prom-client (CommonJS, so it loads synchronously) comes with the first registry: a process
 * without BOARD_METRICS_PORT never loads it.
 */

type HistogramChild = ReturnType<Histogram<string>['labels']>;

export const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client');

const methods = ['GET', 'HEAD', 'POST'] as const;
const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const noRoute = { path: 'none' };

export function createBoardMetrics(app: Services, jobs: RunningJobs | undefined, worker?: string): BoardMetrics {
  const { collectDefaultMetrics, Counter, Histogram, Registry } = promClient();
  const registry = new Registry();
  if (worker) registry.setDefaultLabels({ worker });
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requestSeconds = new Histogram({
    name: 'board_http_request_duration_seconds',
    help: 'Time from a request to the end of its answer, by route pattern (never the raw path), method and status class; _count counts requests.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const refusals = new Counter({
    name: 'board_limit_refusals_total',
    help: 'Requests refused by a limit: kind rate (SPEC per-address groups), write (write limits), brake (login brakes, new accounts, the hashing line, the search line) or federation (inbox POSTs: size, instance (not admitted), object_host, instance_rate, actor_rate, instance_busy).',
    labelNames: ['kind', 'group'],
    registers,
  });
  defineProcessMetrics(app, registers);
  if (jobs) defineJobMetrics(app, jobs, registers);

  // One child per (route, method, status class), made on first use: a request costs an array lookup and an observe.
  const children = new WeakMap<object, (HistogramChild | undefined)[]>();
  const childOf = (route: { readonly path: string }, method: number, statusClass: number): HistogramChild => {
    let row = children.get(route);
    if (!row) children.set(route, (row = []));
    const index = method * statusClasses.length + statusClass;
    return (row[index] ??= requestSeconds.labels(route.path, methods[method] ?? 'other', statusClasses[statusClass]!));
  };

  return {
    registry,
    observeRequest(route, method, status, seconds) {
      const methodIndex = methodIndexOf(method);
      const statusClass = Math.min(4, Math.max(0, Math.floor(status / 100) - 1));
      childOf(route ?? noRoute, methodIndex, statusClass).observe(seconds);
    },
    countRefusal(limit) {
      const slash = limit.indexOf('/');
      refusals.inc({ kind: limit.slice(0, slash), group: limit.slice(slash + 1) });
    },
  };
}

function methodIndexOf(method: string): number {
  const index = (methods as readonly string[]).indexOf(method);
  return index < 0 ? methods.length : index;
}

function defineProcessMetrics(app: Services, registers: Registry[]): void {
  const { Counter, Gauge } = promClient();
  new Counter({
    name: 'board_response_cache_total',
    help: 'Answers from the response cache (hit) or built (miss): feed pages, threads, user feeds, search pages, documents (Atom feeds) and HTML pages.',
    labelNames: ['answer', 'result'],
    registers,
    collect() {
      const tally = responsesOf(app.db).tally;
      this.reset();
      this.inc({ answer: 'feed', result: 'hit' }, tally.feedHits);
      this.inc({ answer: 'feed', result: 'miss' }, tally.feedMisses);
      this.inc({ answer: 'thread', result: 'hit' }, tally.threadHits);
      this.inc({ answer: 'thread', result: 'miss' }, tally.threadMisses);
      this.inc({ answer: 'user_feed', result: 'hit' }, tally.userFeedHits);
      this.inc({ answer: 'user_feed', result: 'miss' }, tally.userFeedMisses);
      this.inc({ answer: 'search', result: 'hit' }, tally.searchHits);
      this.inc({ answer: 'search', result: 'miss' }, tally.searchMisses);
      this.inc({ answer: 'document', result: 'hit' }, tally.documentHits);
      this.inc({ answer: 'document', result: 'miss' }, tally.documentMisses);
      this.inc({ answer: 'page', result: 'hit' }, tally.pageHits);
      this.inc({ answer: 'page', result: 'miss' }, tally.pageMisses);
    },
  });
  new Counter({
    name: 'board_batched_writes_total',
    help: 'Creates written in groups (db.txBatched, kind="write"; a refused duplicate counts too) and the commits they took (kind="commit"): write / commit is the creates per commit.',
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      this.inc({ kind: 'write' }, app.db.batchTally.writes);
      this.inc({ kind: 'commit' }, app.db.batchTally.commits);
    },
  });
  new Gauge({
    name: 'board_password_hashing_waiting',
    help: 'Requests waiting for a password-hashing slot (the line is bounded: 503 auth.busy past it).',
    registers,
    collect() {
      this.set(app.passwords.load().waiting);
    },
  });
  new Gauge({
    name: 'board_password_hashing_running',
    help: 'Password hashes this process runs now (at most two on the machine).',
    registers,
    collect() {
      this.set(app.passwords.load().running);
    },
  });
}

export function defineJobMetrics(
  app: JobDeps & { config: Config; disk: Pick<DiskWatch, 'freeBytes'> },
  jobs: Pick<RunningJobs, 'previews' | 'notifier' | 'push'>,
  registers: Registry[],
): void {
  const { Counter, Gauge } = promClient();
  new Gauge({
    name: 'board_preview_queue_depth',
    help: 'Link-preview jobs due now in the database queue (running ones included).',
    registers,
    collect() {
      this.set(countDueJobs(app.db, app.clock.now()));
    },
  });
  new Counter({
    name: 'board_preview_jobs_total',
    help: 'Finished link-preview jobs by outcome: saved, failed (the link is retried a day later), deferred (DNS timeout), released (shutdown).',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      const outcomes = jobs.previews?.stats().outcomes;
      if (!outcomes) return;
      for (const [outcome, count] of Object.entries(outcomes)) this.inc({ outcome }, count);
    },
  });
  if (app.config.federation !== 'off') defineFederationMetrics(app, registers);
  new Counter({
    name: 'board_push_total',
    help: 'Web Push tries by outcome: delivered, gone (404/410: the subscription was dropped), blocked (the guard refused the endpoint; dropped), retried (429, 5xx or no answer: queued again), failed (given up), skipped (read, hidden or too old by its turn).',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      const outcomes = jobs.push?.stats().outcomes;
      if (!outcomes) return;
      for (const [outcome, count] of Object.entries(outcomes)) this.inc({ outcome }, count);
    },
  });
  new Counter({
    name: 'board_notify_messages_total',
    help: 'Report messages to BOARD_NOTIFY_URL: sent (the webhook took it) or failed (given up after 3 tries; its reports go into the next message).',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      const messages = jobs.notifier?.stats().messages;
      if (!messages) return;
      for (const [outcome, count] of Object.entries(messages)) this.inc({ outcome }, count);
    },
  });
  new Counter({
    name: 'board_notify_reports_total',
    help: "Reports worth a message (an entry's first open report, or its fifth) by how they reached BOARD_NOTIFY_URL: alone (a message of its own), coalesced (counted in one message with others, at most one message a minute) or unsent (dropped at shutdown).",
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      const notices = jobs.notifier?.stats().notices;
      if (!notices) return;
      for (const [outcome, count] of Object.entries(notices)) this.inc({ outcome }, count);
    },
  });
  new Gauge({
    name: 'board_database_size_bytes',
    help: 'Size of board.db on disk.',
    registers,
    collect() {
      this.set(fileSize(app.config.dbPath));
    },
  });
  new Gauge({
    name: 'board_database_wal_size_bytes',
    help: 'Size of board.db-wal, the write-ahead log (bounded by the checkpoints, lib/db/db.ts).',
    registers,
    collect() {
      this.set(fileSize(`${app.config.dbPath}-wal`));
    },
  });
  new Gauge({
    name: 'board_data_volume_free_bytes',
    help: 'Free bytes of the volume that holds BOARD_DATA (as an unprivileged writer sees them); writes fail with 507 server.disk_full at 0.',
    registers,
    collect() {
      this.set(app.disk.freeBytes());
    },
  });
  const media = mediaUsage(app.config.mediaDir, () => app.clock.now());
  new Gauge({
    name: 'board_media_bytes',
    help: `Bytes of the files in each media folder: e (entry images), a (avatars), preview (link-preview thumbnails); counted by a walk at most every ${mediaUsageMaxAgeSeconds / 60} minutes.`,
    labelNames: ['folder'],
    registers,
    async collect() {
      for (const [folder, bytes] of Object.entries(await media.current())) this.set({ folder }, bytes);
    },
  });
  new Gauge({
    name: 'board_reports_open',
    help: 'Open reports waiting for the moderation.',
    registers,
    collect() {
      this.set(countAllOpenReports(app.db));
    },
  });
}

function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function defineFederationMetrics(app: JobDeps, registers: Registry[]): void {
  const { Counter, Gauge } = promClient();
  const state = () => deliveryState(app.db, app.clock.now());
  new Gauge({
    name: 'board_federation_deliveries_waiting',
    help: 'Deliveries waiting (due or in their back-off) by instance, the 200 busiest.',
    labelNames: ['instance'],
    registers,
    collect() {
      this.reset();
      for (const row of state().byInstance) this.set({ instance: row.host }, row.queued);
    },
  });
  new Counter({
    name: 'board_federation_deliveries_total',
    help: 'Deliveries by instance and outcome since the instance was first seen: delivered (2xx), failed (given up: 404/410, or two days of tries).',
    labelNames: ['instance', 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const row of state().byInstance) {
        this.inc({ instance: row.host, outcome: 'delivered' }, row.delivered);
        this.inc({ instance: row.host, outcome: 'failed' }, row.failed);
      }
    },
  });
  new Gauge({
    name: 'board_federation_oldest_waiting_seconds',
    help: 'Age of the oldest waiting delivery; 0 when none waits.',
    registers,
    collect() {
      this.set(state().oldestWaitingSeconds);
    },
  });
  new Gauge({
    name: 'board_federation_outbox_rows',
    help: 'Writes not yet turned into deliveries (the delivery job empties it within a second).',
    registers,
    collect() {
      this.set(state().outbox);
    },
  });
}
