import { createApp, type App } from '../../app.ts';
import { loadConfig, type Config } from '../../config.ts';
import type { Notice } from '../../outgoing/operator-webhook.ts';
import type { JobLink, WakeableJob } from '../../jobs/once-jobs.ts';
import { serveApp } from '../serve.ts';
import { slotLimits, type MachineSlots, type SlotPool } from '../../host/machine-slots.ts';
import { startupFailure } from '../startup-errors.ts';
import { workerIndexVariable } from './worker-index.ts';
import type { MetricsMessage } from './metrics.ts';
import { isSlotMessage, remoteSemaphore, type SlotMessage } from './slots-ipc.ts';

export type WorkerMessage =
  | { board: 'listening'; port: number }
  | { board: 'wake'; job: WakeableJob }
  | { board: 'notify'; notice: Notice };

/**
 * One cluster worker: serves HTTP on its own socket of the shared port with its own database
 * connection, response cache and impression counts; wakes the once-jobs in the primary over IPC,
 * takes its slots from there, and stops gracefully on SIGTERM or when the primary is gone.
 */
export function runWorker(): void {
  const send = (message: WorkerMessage | SlotMessage | MetricsMessage) => {
    if (process.connected) process.send!(message);
  };
  const grantListeners = new Map<SlotPool, (id: number) => void>();
  const remote = (pool: SlotPool) => remoteSemaphore(pool, send, (listener) => grantListeners.set(pool, listener));
  const slots = Object.fromEntries(
    (Object.keys(slotLimits) as SlotPool[]).map((pool) => [pool, remote(pool)]),
  ) as MachineSlots;

  let config: Config;
  let app: App;
  const link: JobLink = {
    wake: (job) => send({ board: 'wake', job }),
    notify: (notice) => send({ board: 'notify', notice }),
  };
  try {
    config = loadConfig(process.env);
    app = createApp(config, { worker: { link, label: process.env[workerIndexVariable] ?? '0', slots } });
  } catch (err) {
    console.error(`board: ${startupFailure(err, undefined) ?? (err instanceof Error ? err.stack : String(err))}`);
    process.exit(1);
  }
  const registry = app.services.metrics?.registry;
  const answerMetrics = (id: number) =>
    void registry?.getMetricsAsJSON().then(
      (metrics) => send({ board: 'metrics', id, metrics }),
      (err: Error) => app.services.log(`metrics: ${err.message}`),
    );

  const serving = serveApp(app, config, {
    reusePort: true,
    listening: (port) => send({ board: 'listening', port }),
    failed: (err, line) => {
      console.error(`board: ${line ?? startupFailure(err, config) ?? err.stack}`);
      process.exit(1);
    },
  });
  const shutdown = (reason: string) => void serving.shutdown(reason).then(() => process.exit(0));
  process.on('message', (message: unknown) => {
    if (isSlotMessage(message) && message.op === 'grant') grantListeners.get(message.pool)?.(message.id);
    else if ((message as MetricsMessage | undefined)?.board === 'metrics')
      answerMetrics((message as MetricsMessage).id);
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // An orphaned worker (the primary was killed) must not serve on without its jobs.
  process.on('disconnect', () => shutdown('the primary is gone'));
}
