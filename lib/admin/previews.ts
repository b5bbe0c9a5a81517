import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { createPreviewWorker, drainPreviewQueue, type DrainResult, type PreviewOptions } from '../preview/queue.ts';
import { queueEntryLinks } from '../preview/store.ts';
import { createMachineSlots } from '../host/machine-slots.ts';
import { createSharpImages } from '../media/images.ts';

export interface BackfillOptions extends PreviewOptions {
  all: boolean;
  clock: Clock;
  log: (line: string) => void;
  progress: (result: DrainResult) => void;
}

export async function backfillPreviews(
  config: Config,
  db: Db,
  options: BackfillOptions,
): Promise<{ queued: number } & DrainResult> {
  const queued = queueEntryLinks(db, options.clock.now(), options.all);
  // A tool's own image pool: board-admin runs beside the server, as one more process.
  const images = createSharpImages(createMachineSlots().image);
  const worker = createPreviewWorker({ db, config, clock: options.clock, log: options.log, images }, options);
  try {
    return { queued, ...(await drainPreviewQueue(worker, options.progress)) };
  } finally {
    await worker.client.close();
  }
}
