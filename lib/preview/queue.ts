import type { Config } from '../config.ts';
import { settleWithin } from '../host/settle.ts';

import type { Images } from '../media/images.ts';
import { removeMedia } from '../media/files.ts';
import { createPreviewClient, PreviewFetchError, type PreviewClient, type Resolver } from '../outgoing/client.ts';
import { createDnsResolver, type DnsOptions } from '../outgoing/dns.ts';
import { PreviewBlockedError } from '../outgoing/guard.ts';
import { fetchPreview, fetchThumbnail } from './fetch.ts';
import {
  claimPreviewJob,
  countDueJobs,
  deferPreviewJob,
  maxJobAttempts,
  queuePreviewIfDue,
  queueStalePreviews,
  releasePreviewJob,
  removeUnusedPreviews,
  savePreview,
  savePreviewFailure,
  type ClaimedJob,
} from './store.ts';
import { logFailure } from '../log.ts';
import type { JobDeps } from '../host/job-runs.ts';

export interface PreviewOptions {
  timeoutMs?: number;
  resolve?: Resolver;
  dns?: DnsOptions;
  pollMs?: number;
}

/**
 * docs/OPERATIONS.md "Link previews": two fetches at a time, so previews never crowd out requests
 * on a small machine.
 */
export const previewConcurrency = 2;
const sweepIntervalMs = 86_400_000;
const stopGraceMs = 5_000;

export interface PreviewWorker extends PreviewDeps {
  client: PreviewClient;
}

export interface PreviewDeps extends JobDeps {
  config: Config;
  images: Pick<Images, 'previewThumbnail'>;
}

/** An honest User-Agent: sites can see who fetches and where to complain. */
export function previewUserAgent(config: Config): string {
  return `BoardPreview/1.0 (+${config.origin})`;
}

export function createPreviewWorker(base: PreviewDeps, options: PreviewOptions = {}): PreviewWorker {
  const client = createPreviewClient({
    allow: base.config.previewAllow,
    ports: base.config.previewPorts,
    userAgent: previewUserAgent(base.config),
    timeoutMs: options.timeoutMs,
    resolve: options.resolve ?? createDnsResolver(options.dns),
  });
  return { ...base, client };
}

export type JobOutcome = 'saved' | 'failed' | 'deferred' | 'released';

export const localTimeoutRetrySeconds = 60;

export async function runPreviewJob(worker: PreviewWorker, job: ClaimedJob, signal: AbortSignal): Promise<JobOutcome> {
  const { db, config, clock, log, client, images } = worker;
  let thumb = '';
  try {
    if (job.attempts > maxJobAttempts) throw new Error(`given up after ${maxJobAttempts} unfinished attempts`);
    const found = await fetchPreview(client, config, job.url, signal);
    if (found.title) thumb = await fetchThumbnail(client, images, config, found.image, signal, log);
    signal.throwIfAborted();
    const replaced = savePreview(
      db,
      { url: job.url, kind: found.kind, title: found.title, site: found.site, thumb },
      clock.now(),
    );
    thumb = '';
    await removeMedia(config, [replaced], log);
    return 'saved';
  } catch (err) {
    await removeMedia(config, [thumb], log);
    try {
      if (signal.aborted) {
        releasePreviewJob(db, job.url);
        return 'released';
      }
      if (err instanceof PreviewFetchError && err.reason === 'dns-timeout') {
        log(`preview ${job.url}: ${err.message}; tried again in ${localTimeoutRetrySeconds} s`);
        deferPreviewJob(db, job.url, clock.now() + localTimeoutRetrySeconds);
        return 'deferred';
      }
      // A site that fails or is refused is an outcome, not a fault of ours: its reason is enough.
      if (err instanceof PreviewFetchError || err instanceof PreviewBlockedError)
        log(`preview ${job.url}: ${err.message}`);
      else logFailure(log, `preview ${job.url}`, err);
      savePreviewFailure(db, job.url, clock.now());
    } catch (dbErr) {
      logFailure(log, `preview ${job.url}: cannot record the outcome`, dbErr);
    }
    return 'failed';
  }
}

export interface PreviewQueue {
  wake(): void;
  stop(): Promise<void>;
  stats(): { running: number; outcomes: Readonly<Record<JobOutcome, number>> };
}

export function startPreviewQueue(app: PreviewDeps, options: PreviewOptions = {}): PreviewQueue {
  const worker = createPreviewWorker(
    { db: app.db, config: app.config, clock: app.clock, log: app.log, images: app.images },
    options,
  );
  const controller = new AbortController();
  const running = new Set<Promise<unknown>>();
  const outcomes: Record<JobOutcome, number> = { saved: 0, failed: 0, deferred: 0, released: 0 };
  let stopping = false;

  const pump = () => {
    while (!stopping && running.size < previewConcurrency) {
      let job: ClaimedJob | undefined;
      try {
        job = claimPreviewJob(app.db, app.clock.now());
      } catch (err) {
        logFailure(app.log, 'preview queue', err);
        return;
      }
      if (!job) return;
      const run: Promise<unknown> = runPreviewJob(worker, job, controller.signal).then((outcome) => {
        outcomes[outcome]++;
        running.delete(run);
        pump();
      });
      running.add(run);
    }
  };

  // Previews another process stored reach cached pages through the response cache's data_version check.
  const poll = () => {
    if (!stopping) pump();
  };

  const sweep = () => {
    if (stopping) return;
    try {
      const now = app.clock.now();
      queueStalePreviews(app.db, now);
      void removeMedia(app.config, removeUnusedPreviews(app.db, now), app.log);
    } catch (err) {
      logFailure(app.log, 'preview sweep failed', err);
    }
    pump();
  };

  const pollTimer = setInterval(poll, options.pollMs ?? 2_000);
  const sweepTimer = setInterval(sweep, sweepIntervalMs);
  pollTimer.unref();
  sweepTimer.unref();
  setImmediate(sweep);

  return {
    wake() {
      setImmediate(pump);
    },
    async stop() {
      stopping = true;
      clearInterval(pollTimer);
      clearInterval(sweepTimer);
      controller.abort();
      await settleWithin(running, stopGraceMs);
      await worker.client.close();
    },
    stats: () => ({ running: running.size, outcomes }),
  };
}

/**
 * Create and edit: queue the entry's link when its record is missing or due, and wake the queue.
 * A failure here is logged, not answered: the entry is already stored, and a 500 would only make
 * the author post it twice.
 */
export function requestPreview(app: JobDeps & { previews?: Pick<PreviewQueue, 'wake'> }, link: string): void {
  if (!link || !app.previews) return;
  try {
    if (queuePreviewIfDue(app.db, link, app.clock.now())) app.previews.wake();
  } catch (err) {
    logFailure(app.log, 'preview queue', err);
  }
}

export interface DrainResult {
  total: number;
  done: number;
  saved: number;
  failed: number;
}

export async function drainPreviewQueue(
  worker: PreviewWorker,
  onProgress: (result: DrainResult) => void = () => {},
): Promise<DrainResult> {
  const result: DrainResult = { total: countDueJobs(worker.db, worker.clock.now()), done: 0, saved: 0, failed: 0 };
  const signal = new AbortController().signal;
  const work = async () => {
    for (
      let job = claimPreviewJob(worker.db, worker.clock.now());
      job;
      job = claimPreviewJob(worker.db, worker.clock.now())
    ) {
      const outcome = await runPreviewJob(worker, job, signal);
      result.done++;
      if (outcome === 'saved') result.saved++;
      else result.failed++;
      result.total = Math.max(result.total, result.done);
      onProgress(result);
    }
  };
  await Promise.all(Array.from({ length: previewConcurrency }, work));
  return result;
}
