import { AggregatorRegistry } from 'prom-client';
import { createApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import type { JobLink } from '../once-jobs.ts';
import { serveApp } from '../serve.ts';
import { useSlots, type SlotPool } from '../slots.ts';
import { startupFailure } from '../startup-errors.ts';
import { isSlotMessage, remoteSemaphore, type SlotMessage } from './slots.ts';

/** What a worker tells the primary (besides slot messages, lib/cluster/slots.ts). */
export type WorkerMessage =
  | { board: 'listening'; port: number }
  | { board: 'wake'; job: 'previews' | 'accountRemoval' }
  | { board: 'notify'; text: string };

/** What the primary tells a worker: stop gracefully (the primary got SIGTERM alone). */
export interface StopMessage {
  board: 'stop';
}

/** The worker's number (1..N) the primary gives each worker; a replacement takes over the number of the one it replaces. */
export const workerIndexVariable = 'BOARD_WORKER_INDEX';

/**
 * One cluster worker: serves HTTP on the shared port with its own database connection, its own
 * response cache and its own impression counts. The once-jobs run in the primary; this process
 * wakes them over IPC, takes hashing and image slots from the primary, and stops gracefully on
 * SIGTERM, on the primary's stop message, or when the primary is gone.
 */
export function runWorker(): void {
  const send = (message: WorkerMessage | SlotMessage) => {
    if (process.connected) process.send!(message);
  };
  const grantListeners = new Map<SlotPool, (id: number) => void>();
  const remote = (pool: SlotPool) => remoteSemaphore(pool, send, (listener) => grantListeners.set(pool, listener));
  useSlots({ hash: remote('hash'), image: remote('image') });

  let config: Config;
  let app: App;
  const link: JobLink = {
    wake: (job) => send({ board: 'wake', job }),
    notify: (text) => send({ board: 'notify', text }),
  };
  try {
    config = loadConfig(process.env);
    app = createApp(config, { worker: { link, label: process.env[workerIndexVariable] ?? '0' } });
  } catch (err) {
    console.error(`board: ${startupFailure(err, undefined) ?? (err instanceof Error ? err.stack : String(err))}`);
    process.exit(1);
  }
  if (app.services.metrics) {
    AggregatorRegistry.setRegistries([app.services.metrics.registry]);
    new AggregatorRegistry(); // answers the primary's requests for this worker's metrics
  }

  const serving = serveApp(app, config, {
    listening: (port) => send({ board: 'listening', port }),
    failed: (err, line) => {
      console.error(`board: ${line ?? startupFailure(err, config) ?? err.stack}`);
      process.exit(1);
    },
  });
  const shutdown = (reason: string) => void serving.shutdown(reason).then(() => process.exit(0));
  process.on('message', (message: unknown) => {
    if (isSlotMessage(message) && message.op === 'grant') grantListeners.get(message.pool)?.(message.id);
    else if ((message as StopMessage | undefined)?.board === 'stop') shutdown('stop from the primary');
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // An orphaned worker (the primary was killed) must not serve on without its jobs.
  process.on('disconnect', () => shutdown('the primary is gone'));
}
