import { statSync } from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiError } from '../http/errors.ts';
import { hashingLoad } from '../passwords.ts';
import { countDueJobs } from '../preview/store.ts';
import { countAllOpenReports } from '../reports.ts';
import type { Services } from '../services.ts';

/*
 * The board's Prometheus metrics (README "Metrics"), in one registry per process. Most values are
 * read when Prometheus scrapes (collect callbacks over plain counters the code keeps anyway, a
 * file size, one indexed count); only the request histogram and the refusal counter are written
 * on the request path, each a cached child's observe or inc.
 *
 * Ready for node:cluster (a later issue): every worker keeps this registry and hands it to
 * prom-client's AggregatorRegistry.setRegistries; the metrics listener (lib/metrics/listener.ts)
 * then runs in the primary and answers AggregatorRegistry.clusterMetrics(). Counters and
 * histograms add up across workers; the gauges read from the shared database say `aggregator:
 * 'first'`, so N workers do not show N times the database. The primary should then read those
 * gauges itself (one read instead of one per worker); that is the step left for the cluster issue.
 */

/** What the request pipeline and the limits tell the metrics. */
export interface BoardMetrics {
  readonly registry: Registry;
  /** One answered request: its route (undefined before or without a match), method, status and duration. */
  observeRequest(route: { readonly path: string } | undefined, method: string, status: number, seconds: number): void;
  /** A request some limit refused (an ApiError with `limit`). */
  countRefusal(limit: NonNullable<ApiError['options']['limit']>): void;
}

type HistogramChild = ReturnType<Histogram<string>['labels']>;

const methods = ['GET', 'HEAD', 'POST'] as const;
const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const noRoute = { path: 'none' };

/** Builds the registry for one board (the services it reads from), with Node's default process metrics. */
export function createBoardMetrics(app: Services): BoardMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Process memory, CPU, event-loop delay (nodejs_eventloop_lag_*), heap and handles.
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
    help: 'Requests refused by a limit: kind rate (SPEC per-address groups), write (write limits) or brake (login brakes, new accounts, the hashing line).',
    labelNames: ['kind', 'group'],
    registers,
  });
  defineCollectedMetrics(app, registers);

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

/** The metrics read at scrape time from what the board keeps anyway. */
function defineCollectedMetrics(app: Services, registers: Registry[]): void {
  new Counter({
    name: 'board_response_cache_total',
    help: 'Feed pages and threads answered from the response cache (hit) or built (miss).',
    labelNames: ['answer', 'result'],
    registers,
    collect() {
      const tally = app.db.responses.tally;
      this.reset();
      this.inc({ answer: 'feed', result: 'hit' }, tally.feedHits);
      this.inc({ answer: 'feed', result: 'miss' }, tally.feedMisses);
      this.inc({ answer: 'thread', result: 'hit' }, tally.threadHits);
      this.inc({ answer: 'thread', result: 'miss' }, tally.threadMisses);
    },
  });
  new Gauge({
    name: 'board_preview_queue_depth',
    help: 'Link-preview jobs due now in the database queue (running ones included).',
    registers,
    aggregator: 'first',
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
      const outcomes = app.previews?.stats().outcomes;
      if (!outcomes) return; // BOARD_PREVIEW=0: no queue runs in this process
      for (const [outcome, count] of Object.entries(outcomes)) this.inc({ outcome }, count);
    },
  });
  new Gauge({
    name: 'board_password_hashing_waiting',
    help: 'Requests waiting for a password-hashing slot (the line is bounded: 503 auth.busy past it).',
    registers,
    collect() {
      this.set(hashingLoad().waiting);
    },
  });
  new Gauge({
    name: 'board_password_hashing_running',
    help: 'Password hashes running now (at most two).',
    registers,
    collect() {
      this.set(hashingLoad().running);
    },
  });
  new Gauge({
    name: 'board_database_size_bytes',
    help: 'Size of board.db on disk.',
    registers,
    aggregator: 'first',
    collect() {
      this.set(fileSize(app.config.dbPath));
    },
  });
  new Gauge({
    name: 'board_database_wal_size_bytes',
    help: 'Size of board.db-wal, the write-ahead log (bounded by the checkpoints, lib/db.ts).',
    registers,
    aggregator: 'first',
    collect() {
      this.set(fileSize(`${app.config.dbPath}-wal`));
    },
  });
  new Gauge({
    name: 'board_reports_open',
    help: 'Open reports waiting for the moderation.',
    registers,
    aggregator: 'first',
    collect() {
      this.set(countAllOpenReports(app.db));
    },
  });
}

/** A file's size, 0 when it does not exist (no WAL between checkpoints and a restart). */
function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
