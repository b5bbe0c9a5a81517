import type { JobDeps } from '../host/job-runs.ts';
import type { DeliveryJob, DeliveryOptions, DeliveryStats } from './delivery.ts';
import type { FederationDeps, FederationOptions } from './runtime.ts';
import type { Notifier } from '../outgoing/operator-webhook.ts';

/**
 * Federation's once-job (lib/jobs/once-jobs.ts): the delivery job and the inbox queue, in the one
 * process (or the cluster's primary) that runs the once-jobs. Fedify is loaded here only when this
 * starts, so a board with BOARD_FEDERATION=off never loads it.
 */

export interface FederationJobOptions extends FederationOptions {
  delivery?: DeliveryOptions;
}

export interface FederationJob {
  wake(): void;
  stop(): Promise<void>;
  stats(): DeliveryStats | undefined;
}

export function startFederationJob(
  deps: JobDeps & Pick<FederationDeps, 'config' | 'images'> & { notifier?: Pick<Notifier, 'send'> },
  options: FederationJobOptions = {},
): FederationJob {
  const inbox = new AbortController();
  let delivery: DeliveryJob | undefined;
  let stopped = false;
  const started = Promise.all([import('./runtime.ts'), import('./delivery.ts')]).then(
    async ([runtimes, deliveries]) => {
      const runtime = runtimes.createFederationRuntime(deps, options);
      if (stopped) return runtime;
      delivery = deliveries.startDelivery(deps, runtime, options.delivery);
      // Inbox work past the answer: what the inbox listeners do (lib/federation/runtime.ts), off every request.
      void runtime.federation
        .startQueue(deps, { signal: inbox.signal, queue: 'inbox' })
        .catch((err: Error) => deps.log(`federation: inbox queue: ${err.message}`));
      return runtime;
    },
  );
  started.catch((err: Error) => deps.log(`federation: cannot start: ${err.message}`));
  return {
    wake() {
      void started.then(() => delivery?.wake());
    },
    async stop() {
      stopped = true;
      inbox.abort();
      const runtime = await started.catch(() => undefined);
      await delivery?.stop();
      await runtime?.close();
    },
    stats: () => delivery?.stats(),
  };
}
