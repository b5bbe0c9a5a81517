import { createDiskWatch } from '../../host/disk-watch.ts';
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { systemClock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { openDb, type Db } from '../../db/db.ts';
import { createLineLog, type LineLog } from '../../log.ts';
import { createMetricsServer, listenOnLoopback } from '../../metrics/listener.ts';
import { runningJobNames, startOnceJobs, type RunningJobs } from '../../jobs/once-jobs.ts';
import { createLimitStore } from '../../limits/rate-limit.ts';
import { createSharpImages } from '../../media/images.ts';
import { metricsUrl } from '../serve.ts';
import { metricsListenFailure } from '../startup-errors.ts';
import { createClusterMetrics, type MetricsMessage } from './metrics.ts';
import { claimWorkersPort } from './port.ts';
import { isSlotMessage, serveSlots, type SlotServer } from './slots-ipc.ts';
import type { WorkerMessage } from './worker.ts';
import { workerIndexVariable } from './worker-index.ts';

type Fail = (err: unknown, config: Config, line?: string) => never;

/** A worker that dies within this long after its start counts as a crash loop: the next waits longer. */
const quickDeathMs = 10_000;
const firstBackoffMs = 250;
const maxBackoffMs = 30_000;
/** SIGTERM: workers get this long to finish their requests (they close stragglers after 10 s) before they are killed. */
const stopGraceMs = 15_000;

/**
 * The cluster's primary (BOARD_WORKERS > 1): holds the pid file, opens the database first
 * (migrations run once), runs the once-jobs and the checkpoint thread, hands out the machine's
 * slots, answers the metrics, claims the port and forks the workers, replacing a dead one (later
 * while they die young).
 */
export function runPrimary(config: Config, releasePidFile: () => void, fail: Fail): void {
  const log = createLineLog();
  const slots = serveSlots();
  let background: Background;
  try {
    background = startBackground(config, log, slots);
  } catch (err) {
    releasePidFile();
    return fail(err, config);
  }
  const { db, jobs } = background;
  log(
    `board: primary (pid ${process.pid}) runs the background jobs: ${runningJobNames(jobs).join(', ')}, ${config.litestream ? 'no WAL checkpoints (Litestream runs them)' : 'WAL checkpoints'}`,
  );
  const disk = createDiskWatch({ dataDir: config.dataDir, lowBytes: config.diskLowBytes, clock: systemClock, log });
  disk.logIfLow();
  const metrics =
    config.metrics &&
    createClusterMetrics({ db, clock: systemClock, log, config, disk }, jobs, slots, () => [...workers.serving]);
  const metricsServer = metrics && createMetricsServer(metrics, log);
  let listening = 0;
  let started = false;

  const workers = createWorkerPool(config, log, {
    started: () => started,
    message(worker, message) {
      if (isSlotMessage(message)) return slots.handle(worker, message);
      if (message.board === 'metrics') return metrics?.receive(message);
      if (message.board === 'wake') return jobs[message.job]?.wake();
      if (message.board === 'notify') return jobs.notifier?.send(message.notice);
      workers.serving.add(worker);
      if (!started && ++listening === config.workers) {
        started = true;
        announceStart(config, message.port, metricsServer, (err) =>
          stop('metrics listener failed').then(() => fail(err, config, metricsListenFailure(err, config.metrics!))),
        );
      }
    },
    ended: (worker) => slots.forget(worker),
    // A worker that cannot start (port in use, ...) printed its one line; the whole start fails.
    startFailed: () => void stop('a worker could not start').then(() => process.exit(1)),
    restarting: () => metrics?.countRestart(),
  });

  let stopped: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopped ??= (async () => {
      if (started) log(`board: ${reason}, stopping ${workers.size()} workers`);
      await workers.stop();
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      await jobs.stop();
      await db.close();
      releasePidFile();
      log.flush();
    })());

  claimWorkersPort(config.host, config.port).then(
    (port) => workers.start(port),
    (err: Error) => void stop('the port is not free').then(() => fail(err, config)),
  );
  const shutdown = (signal: string) => void stop(signal).then(() => process.exit(0));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

interface Background {
  db: Db;
  jobs: RunningJobs;
}

function startBackground(config: Config, log: LineLog, slots: SlotServer): Background {
  const db = openDb(config.dbPath, { backgroundCheckpoints: true, litestream: config.litestream, log });
  const jobs = startOnceJobs({
    db,
    clock: systemClock,
    log,
    config,
    limits: createLimitStore(db, { log }),
    images: createSharpImages(slots.pools.image),
    options: {},
    clustered: true,
  });
  return { db, jobs };
}

function announceStart(
  config: Config,
  port: number,
  metricsServer: Server | undefined,
  failed: (err: Error) => Promise<void>,
): void {
  console.log(
    `board listening on http://${config.host}:${port} (data in ${config.dataDir}; ${config.workers} workers)`,
  );
  if (!metricsServer || !config.metrics) return;
  const { port: wanted, host } = config.metrics;
  listenOnLoopback(metricsServer, wanted, host).then(
    (metricsPort) => console.log(`board: metrics on ${metricsUrl(host, metricsPort)}`),
    (err: Error) => void failed(err),
  );
}

interface PoolEvents {
  started(): boolean;
  message(worker: Worker, message: WorkerMessage | MetricsMessage): void;
  ended(worker: Worker): void;
  startFailed(): void;
  restarting(): void;
}

interface WorkerPool {
  start(port: number): void;
  readonly serving: Set<Worker>;
  size(): number;
  stop(): Promise<void>;
}

function createWorkerPool(config: Config, log: LineLog, events: PoolEvents): WorkerPool {
  const workers = new Map<number, Worker>();
  const serving = new Set<Worker>();
  const pendingForks = new Set<NodeJS.Timeout>();
  let stopping = false;
  let quickDeaths = 0;
  let port = config.port;

  const fork = (index: number) => {
    const worker = cluster.fork({ [workerIndexVariable]: String(index), PORT: String(port) });
    const bornAt = Date.now();
    workers.set(index, worker);
    worker.on('message', (message: WorkerMessage | MetricsMessage) => events.message(worker, message));
    worker.on('error', () => {}); // a send to a worker that is just exiting; its exit follows
    worker.on('exit', (code, signal) => {
      events.ended(worker);
      serving.delete(worker);
      if (workers.get(index) === worker) workers.delete(index);
      if (stopping) return;
      if (!events.started()) return events.startFailed();
      quickDeaths = Date.now() - bornAt < quickDeathMs ? quickDeaths + 1 : 0;
      const delay = quickDeaths === 0 ? 0 : Math.min(maxBackoffMs, firstBackoffMs * 2 ** (quickDeaths - 1));
      events.restarting();
      log(
        `board: worker ${index} (pid ${worker.process.pid}) ended (${signal ?? `exit code ${code}`}); a new one starts ${delay ? `in ${delay / 1000} s` : 'now'}`,
      );
      const timer = setTimeout(() => {
        pendingForks.delete(timer);
        if (!stopping) fork(index);
      }, delay);
      pendingForks.add(timer);
    });
  };

  return {
    serving,
    size: () => workers.size,
    start(claimed) {
      port = claimed;
      if (!stopping) for (let index = 1; index <= config.workers; index++) fork(index);
    },
    async stop() {
      stopping = true;
      for (const timer of pendingForks) clearTimeout(timer);
      const exits = [...workers.values()].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            // A signal, not a message: a worker still loading its modules would drop a message, while
            // SIGTERM ends it (no handler yet: nothing to finish) or stops it gracefully.
            worker.process.kill('SIGTERM');
          }),
      );
      const kill = setTimeout(() => {
        log(`board: workers still running after ${stopGraceMs / 1000} s, killing them`);
        for (const worker of workers.values()) worker.process.kill('SIGKILL');
      }, stopGraceMs);
      await Promise.all(exits);
      clearTimeout(kill);
    },
  };
}
