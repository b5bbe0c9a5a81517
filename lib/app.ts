import { createServer, type Server } from 'node:http';
import type { RemovalOptions } from './account-data/removal.ts';
import { openAsnDb } from './stats/asn.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDb, type Db } from './db/db.ts';
import { createHitLines } from './http/hit-lines.ts';
import { createRequestListener } from './http/pipeline.ts';
import { answerMalformedRequest, badRequest, sendError } from './http/respond.ts';
import { createSharpImages, type Images } from './media/images.ts';
import { ImpressionTally, startImpressionFlush, type TallySettings } from './stats/impressions.ts';
import { createDiskWatch } from './host/disk-watch.ts';
import { createLineLog } from './log.ts';
import { createBoardMetrics } from './metrics/board-metrics.ts';
import { createMetricsServer } from './metrics/listener.ts';
import type { NotifyOptions } from './outgoing/operator-webhook.ts';
import { startOnceJobs, type JobLink, type RunningJobs } from './jobs/once-jobs.ts';
import { isCountedPage, notFoundPage } from './pages/shell.ts';
import { createScryptPasswords, type Passwords } from './accounts/passwords.ts';
import { simpleWebAuthn, type WebAuthn } from './accounts/webauthn.ts';
import { createMachineSlots, type MachineSlots } from './host/machine-slots.ts';
import type { PreviewOptions } from './preview/queue.ts';
import type { PushOptions } from './push/queue.ts';
import type { FanoutOptions } from './notifications/fan-out-job.ts';
import { boardRateRules, createLimitStore, createRateLimiter } from './limits/rate-limit.ts';
import { routes } from './routes.ts';
import type { BackfillOptions } from './search/backfill.ts';
import { startSearchThreads, type SearchThreadOptions } from './search/threads.ts';
import type { Services } from './services.ts';
import { openTorExitList } from './limits/tor.ts';
import { clusterBatchWindowMs } from './db/write-batch.ts';
import type { FederationDeps, FederationHandle, FederationOptions, FederationRuntime } from './federation/runtime.ts';
import type { FederationJobOptions } from './federation/job.ts';
import { recordFederationEvents } from './federation/outbox.ts';
import type { JobDeps } from './host/job-runs.ts';

/**
 * What a board is built with besides its config: the clock, and the seams and knobs tests use to
 * hold a request or a job at a point or to shorten its waits (each part's options say what they
 * do).
 */
export interface AppOptions {
  clock?: Clock;
  passwords?: (scrypt: Passwords) => Passwords;
  webauthn?: (library: WebAuthn) => WebAuthn;
  slots?: (slots: MachineSlots) => MachineSlots;
  images?: (sharp: Images) => Images;
  freeBytes?: (path: string) => number;
  log?: (line: string) => void;
  db?: Db;
  preview?: PreviewOptions;
  timeouts?: { headersMs?: number; requestMs?: number; hitLinesMs?: number };
  notify?: NotifyOptions;
  accountRemoval?: RemovalOptions;
  searchBackfill?: BackfillOptions;
  push?: PushOptions;
  threadReplies?: FanoutOptions;
  /** Federation's knobs (tests inject DNS, shorten timeouts and polls); it runs when config.federation is not off. */
  federation?: FederationJobOptions;
  impressions?: Pick<TallySettings, 'maxVisitorsPerDay'>;
  tor?: { recheckMs?: number };
  searchThreads?: SearchThreadOptions;
  /**
   * A cluster worker (lib/process/cluster/worker.ts): no once-jobs here (the primary runs them) but the
   * link that wakes them there; no checkpoint thread; metrics labelled with the worker's number.
   */
  worker?: { link: JobLink; label: string; slots: MachineSlots };
}

export interface App {
  server: Server;
  metricsServer?: Server;
  services: Services;
  jobs?: RunningJobs;
  close(): Promise<void>;
}

/** The composition root: builds the whole board for one config (not yet listening). */
export function createApp(config: Config, options: AppOptions = {}): App {
  const defaultLog = createLineLog();
  const log = options.log ?? defaultLog;
  const worker = options.worker;
  const db =
    options.db ??
    openDb(
      config.dbPath,
      worker
        ? { walLimits: true, batchWindowMs: clusterBatchWindowMs, litestream: config.litestream, log }
        : { backgroundCheckpoints: true, litestream: config.litestream, log },
    );
  const clock = options.clock ?? systemClock;
  const limits = createLimitStore(db, { log });
  const machineSlots = worker?.slots ?? createMachineSlots();
  const slots = options.slots?.(machineSlots) ?? machineSlots;
  const scrypt = createScryptPasswords(slots.hash, slots.registration);
  const sharp = createSharpImages(slots.image);
  const services: Services = {
    config,
    db,
    clock,
    limits,
    limiter: createRateLimiter(limits, boardRateRules, config.limitsFactor),
    passwords: options.passwords?.(scrypt) ?? scrypt,
    webauthn: options.webauthn?.(simpleWebAuthn) ?? simpleWebAuthn,
    images: options.images?.(sharp) ?? sharp,
    tor: openTorExitList(config.torExitsFile, options.tor),
    log,
    asn: openAsnDb(config.asnDb),
    impressions: new ImpressionTally({
      limitsFactor: config.limitsFactor,
      sweepsFinishedDays: !worker,
      maxVisitorsPerDay: options.impressions?.maxVisitorsPerDay,
    }),
    searchThreads: startSearchThreads(db.raw.name, slots.search, options.searchThreads),
    disk: createDiskWatch({
      dataDir: config.dataDir,
      lowBytes: config.diskLowBytes,
      clock,
      log,
      freeBytes: options.freeBytes,
    }),
  };
  const jobDeps = { db: services.db, clock: services.clock, log: services.log };
  const jobs = worker
    ? undefined
    : startOnceJobs({ ...jobDeps, config, limits, images: services.images, options, clustered: false });
  if (worker) {
    if (config.previewEnabled) services.previews = { wake: () => worker.link.wake('previews') };
    if (config.notifyUrl) services.notifier = { send: (notice) => worker.link.notify(notice) };
    services.accountRemoval = { wake: () => worker.link.wake('accountRemoval') };
    services.threadReplies = { wake: () => worker.link.wake('threadReplies') };
  } else {
    Object.assign(services, {
      previews: jobs!.previews,
      notifier: jobs!.notifier,
      accountRemoval: jobs!.accountRemoval,
      threadReplies: jobs!.threadReplies,
    });
  }
  const federation =
    config.federation === 'off'
      ? undefined
      : federationHandle({ ...jobDeps, images: services.images }, config, options.federation);
  services.federation = federation?.handle;
  if (federation) {
    const wake = worker ? () => worker.link.wake('federation') : () => jobs!.federation?.wake();
    recordFederationEvents(db, clock, wake);
  }
  const stopImpressions = startImpressionFlush(services);
  logAsnLoad(services);
  if (!worker) services.disk.logIfLow();
  if (config.metrics) services.metrics = createBoardMetrics(services, jobs, worker?.label);
  const metricsServer =
    !worker && services.metrics ? createMetricsServer(services.metrics.registry, services.log) : undefined;

  // Slow clients: headers must arrive within 10 s and a whole request within 60 s. Node checks
  // both only every connectionsCheckingInterval (30 s by default, which let a slowloris client
  // keep a connection 30 s), so check at a fifth of the headers limit.
  const headersMs = options.timeouts?.headersMs ?? 10_000;
  // requireHostHeader off: Node's own 400 for a missing Host has no JSON body; the pipeline answers it.
  const serverOptions = {
    connectionsCheckingInterval: Math.max(50, Math.round(headersMs / 5)),
    requireHostHeader: false,
  };
  const hitLines = createHitLines(services.log, options.timeouts?.hitLinesMs);
  const server = createServer(
    serverOptions,
    createRequestListener(services, routes, { notFound: notFoundPage, counted: isCountedPage }, hitLines),
  );
  server.headersTimeout = headersMs;
  server.requestTimeout = options.timeouts?.requestMs ?? 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerMalformedRequest);
  server.on('checkExpectation', (req, res) => sendError(services.log, config.maxUpload * 2, req, res, badRequest(417)));

  return {
    server,
    metricsServer,
    services,
    jobs,
    async close() {
      hitLines.flush();
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      // Account removal: the slice in progress commits, the rest stays queued; search backfill: the
      // batch in progress commits, the rest waits for the next start; previews: fetches in flight
      // are aborted, their jobs stay queued; notifications not yet sent are dropped.
      await jobs?.stop();
      await federation?.close();
      // Before the database closes: the search threads' read-only connections, and the last impression counts.
      await services.searchThreads.close();
      stopImpressions();
      services.asn.close();
      await services.db.close();
      defaultLog.flush();
    },
  };
}

/**
 * Federation made on first use: Fedify and its vocabulary are a large load, so a board with
 * BOARD_FEDERATION=off never imports them, and one with it on only once something asks.
 */
function federationHandle(
  deps: JobDeps & Pick<FederationDeps, 'images'>,
  config: Config,
  options: FederationOptions | undefined,
): { handle: FederationHandle; close(): Promise<void> } {
  let made: Promise<FederationRuntime> | undefined;
  const runtime = () =>
    (made ??= import('./federation/runtime.ts').then((m) => m.createFederationRuntime({ ...deps, config }, options)));
  return {
    handle: { runtime },
    async close() {
      if (made) await (await made).close();
    },
  };
}

function logAsnLoad(app: Pick<Services, 'asn' | 'log'>): void {
  void app.asn.ready.then((r) => {
    if (r.error === 'stopped') return;
    app.log(
      r.loaded
        ? `statistics: ASN data set loaded in ${r.ms} ms (${r.v4Ranges} IPv4 and ${r.v6Ranges} IPv6 ranges, ${r.asns} ASNs)`
        : `statistics: no ASN data set (${r.error}); visitors count under ASN 0 "unknown"`,
    );
  });
}
