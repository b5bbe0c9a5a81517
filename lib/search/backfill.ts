import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToRequests } from 'node:timers/promises';

import { backfillBelowMark, mergeIndexStep } from './index.ts';
import { logFailure } from '../log.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * Indexes the entries a board had before the search index existed (docs/API.md "Search"): in the
 * background after start, newest first, in short transactions with the event loop free for
 * requests in between, so search answers from what is indexed while it runs. Its progress is
 * the row in search_backfill, so a restart goes on where it stopped. It is a once-job
 * (lib/jobs/once-jobs.ts): one process runs it however many workers serve; should two boards share
 * a database anyway, each batch claims its pids inside its own write transaction.
 */

export interface BackfillOptions {
  sliceMs?: number;
  batch?: number;
  progressMs?: number;
  paused?: boolean;
}

export interface SearchBackfill {
  resume(): void;
  stop(): Promise<void>;
  readonly finished: Promise<void>;
}

const retryMs = 5_000;

interface Progress {
  next_below: number;
  total: number;
}

const progressOf = (app: JobDeps) => app.db.one<Progress>('SELECT next_below, total FROM search_backfill');

export function startSearchBackfill(app: JobDeps, options: BackfillOptions = {}): SearchBackfill {
  const sliceMs = options.sliceMs ?? 15;
  const batch = options.batch ?? 200;
  const progressMs = options.progressMs ?? 10_000;
  let stopping = false;
  let paused = options.paused ?? false;
  let release: () => void = () => {};
  const unpaused = new Promise<void>((resolve) => (release = resolve));
  if (!paused) release();

  async function run(): Promise<void> {
    await unpaused;
    const first = progressOf(app);
    if (!first || stopping) return;
    const started = performance.now();
    app.log(
      `search: indexing ${(first.next_below - 1).toLocaleString('en')} older entries in the background (written before the index existed)`,
    );
    let nextLine = started + progressMs;
    for (let looked = 1; looked > 0 && !stopping; ) {
      try {
        const deadline = performance.now() + sliceMs;
        do looked = app.db.tx(() => backfillBelowMark(app.db, batch));
        while (looked > 0 && performance.now() < deadline && !stopping);
      } catch (err) {
        logFailure(app.log, `search: indexing failed, tried again in ${retryMs / 1000} s`, err);
        await new Promise((resolve) => setTimeout(resolve, retryMs).unref());
        continue;
      }
      if (performance.now() >= nextLine) {
        nextLine = performance.now() + progressMs;
        logProgress(app);
      }
      await yieldToRequests();
    }
    if (stopping) return;
    app.log(
      `search: the index is complete (${((performance.now() - started) / 1000).toFixed(1)} s); merging its segments`,
    );
    await mergeSegments(app, sliceMs, () => stopping);
  }

  const finished = run().catch((err: unknown) => logFailure(app.log, 'search: indexing stopped', err));
  return {
    resume() {
      paused = false;
      release();
    },
    async stop() {
      stopping = true;
      if (paused) release();
      await finished;
    },
    finished,
  };
}

/** Pages merged per transaction: a slice's worth of work. */
const mergePages = 200;

async function mergeSegments(app: JobDeps, sliceMs: number, stopped: () => boolean): Promise<void> {
  const started = performance.now();
  // Bounded: writes during the merge add segments, and the merge must end some time.
  const pages = app.db.value('SELECT count(*) FROM search_data');
  let steps = 0;
  for (let more = true; more && !stopped() && steps < 2 * (pages / mergePages) + 10; ) {
    const deadline = performance.now() + sliceMs;
    do {
      more = app.db.tx(() => mergeIndexStep(app.db, mergePages));
      steps++;
    } while (more && performance.now() < deadline);
    await yieldToRequests();
  }
  if (!stopped()) app.log(`search: segments merged (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

function logProgress(app: JobDeps): void {
  const progress = progressOf(app);
  if (!progress) return;
  const done = progress.total - (progress.next_below - 1);
  const percent = progress.total ? Math.floor((done / progress.total) * 100) : 100;
  app.log(
    `search: ${done.toLocaleString('en')} of ${progress.total.toLocaleString('en')} older entries looked at (${percent} %)`,
  );
}
