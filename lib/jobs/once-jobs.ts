import { startAccountRemoval, type RemovalOptions } from '../account-data/removal.ts';
import type { Config } from '../config.ts';
import { startHousekeeping } from './housekeeping.ts';
import { startStatisticsSweep } from '../stats/impressions.ts';

import type { Images } from '../media/images.ts';
import { startNotifier, type Notifier, type NotifyOptions, type Notice } from '../outgoing/operator-webhook.ts';
import { startPreviewQueue, type PreviewOptions } from '../preview/queue.ts';
import { startPushQueue, type PushOptions } from '../push/queue.ts';
import { startFanoutJob, type FanoutOptions } from '../notifications/fan-out-job.ts';
import type { LimitStore } from '../limits/rate-limit.ts';
import { startSearchBackfill, type BackfillOptions } from '../search/backfill.ts';
import type { JobDeps } from '../host/job-runs.ts';
import { startFederationJob, type FederationJobOptions } from '../federation/job.ts';

/**
 * THE list of background work that runs once per board, not once per server process: in the one
 * process when BOARD_WORKERS=1, in the cluster's primary otherwise (lib/process/cluster/primary.ts), which
 * survives any worker's death and opens the database for them. The WAL checkpoint thread belongs
 * here too; it comes with the job runner's connection (openDb backgroundCheckpoints). Adding a job
 * is one line below; workers reach a job only through `wake` (or the notifier's `send`), which a
 * cluster worker forwards over IPC (lib/process/cluster/worker.ts).
 *
 * What stays per process: each process counts its own impressions and flushes them (deduplicated in
 * the database, lib/stats/impressions.ts), and keeps its own response cache.
 */
export type WakeableJob = 'previews' | 'accountRemoval' | 'threadReplies' | 'federation';

export interface JobLink {
  wake(job: WakeableJob): void;
  notify(notice: Notice): void;
}

export interface OnceJobContext extends JobDeps {
  config: Config;
  images: Pick<Images, 'previewThumbnail' | 'entry' | 'avatar'>;
  limits: Pick<LimitStore, 'prune'>;
  options: {
    preview?: PreviewOptions;
    notify?: NotifyOptions;
    accountRemoval?: RemovalOptions;
    searchBackfill?: BackfillOptions;
    push?: PushOptions;
    threadReplies?: FanoutOptions;
    federation?: FederationJobOptions;
  };
  clustered: boolean;
  /** The operator's webhook as the jobs reach it (the federation job's reports from other servers); set by startOnceJobs. */
  notifier?: Pick<Notifier, 'send'>;
}

/** Each job: its start function; a job that is off for this config returns undefined. Started in this order, stopped in it too. */
const onceJobs = {
  housekeeping: (c: OnceJobContext) => ({ stop: startHousekeeping({ ...c, mediaDir: c.config.mediaDir }) }),
  accountRemoval: (c: OnceJobContext) => startAccountRemoval(c, c.options.accountRemoval),
  searchBackfill: (c: OnceJobContext) => startSearchBackfill(c, c.options.searchBackfill),
  previews: (c: OnceJobContext) => (c.config.previewEnabled ? startPreviewQueue(c, c.options.preview) : undefined),
  threadReplies: (c: OnceJobContext) => startFanoutJob(c, c.options.threadReplies),
  push: (c: OnceJobContext) => (c.config.pushEnabled ? startPushQueue(c, c.options.push) : undefined),
  // Federation: the outbox's deliveries and the inbox queue (lib/federation/job.ts); Fedify loads only when on.
  federation: (c: OnceJobContext) =>
    c.config.federation === 'off' ? undefined : startFederationJob(c, c.options.federation),
  notifier: (c: OnceJobContext) =>
    c.config.notifyUrl ? startNotifier(c.config.notifyUrl, c.config.origin, c.log, c.options.notify) : undefined,
  statisticsSweep: (c: OnceJobContext) => (c.clustered ? { stop: startStatisticsSweep(c) } : undefined),
};

export type OnceJobs = { -readonly [K in keyof typeof onceJobs]: ReturnType<(typeof onceJobs)[K]> };

export interface RunningJobs extends OnceJobs {
  stop(): Promise<void>;
}

export function runningJobNames(jobs: OnceJobs): string[] {
  return Object.keys(onceJobs).filter((name) => jobs[name as keyof OnceJobs] !== undefined);
}

export function startOnceJobs(context: OnceJobContext): RunningJobs {
  const running = {} as OnceJobs;
  const notifier = { send: (notice: Notice) => running.notifier?.send(notice) };
  for (const [name, start] of Object.entries(onceJobs))
    Object.assign(running, { [name]: start({ ...context, notifier }) });
  return Object.assign(running, {
    async stop() {
      for (const name of Object.keys(onceJobs)) await running[name as keyof OnceJobs]?.stop();
    },
  });
}
