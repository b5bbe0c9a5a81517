import type { Config } from '../config.ts';
import { settleWithin } from '../jobs/settle.ts';
import type { Db } from '../db/db.ts';
import type { Resolver } from '../preview/client.ts';
import { noBanInForce } from '../moderation/bans.ts';
import type { JobDeps } from '../services.ts';
import { dropPushDevice } from './devices.ts';
import { vapidKeys, type VapidKeys } from './keys.ts';
import { pushPayload, type PushedNotification } from './message.ts';
import { createPushSender, pushTtlSeconds, type PushSender, type PushTarget } from './send.ts';

/**
 * The push sender (docs/API.md "Web Push"), a once-job like the preview queue: a trigger queues a
 * row in push_outbox for each push device of an account that gets a notification (at most 20
 * waiting per device), in the transaction that wrote it; this job sends them off the request
 * path. Why so: a push service that is slow or down must never delay a request, and it delays no
 * other job either: at most pushConcurrency pushes are on their way, one per device at a time, each
 * given up after its timeout. A push is sent at most once: its row goes before the request starts,
 * and a failure is logged, not retried (the notification page still has it).
 */

export interface PushOptions {
  /** Per push. Default 10 s. */
  timeoutMs?: number;
  /** How often the job looks for queued pushes (other processes' too). Default 1 s. */
  pollMs?: number;
  /** DNS for the sender (tests inject answers). */
  resolve?: Resolver;
}

/** Pushes on their way at once: enough for a small board, few enough that hung services cost little. */
export const pushConcurrency = 4;
const stopGraceMs = 5_000;

export type PushOutcome = 'delivered' | 'gone' | 'blocked' | 'failed' | 'skipped';

export interface PushQueue {
  /** A push was queued: start it now if a slot is free. */
  wake(): void;
  /** Aborts pushes on their way and stops. */
  stop(): Promise<void>;
  stats(): { running: number; outcomes: Readonly<Record<PushOutcome, number>> };
}

interface Queued {
  id: number;
  session_id: string;
  notification_id: number;
  created_at: number;
}

/** The next queued push of a device that has none on its way, oldest first. */
function nextQueued(db: Db, busy: Set<string>): Queued | undefined {
  return db.one<Queued>(
    `SELECT id, session_id, notification_id, created_at FROM push_outbox
     WHERE session_id NOT IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT 1`,
    JSON.stringify([...busy]),
  );
}

/**
 * Takes the row out of the queue and reads what to send, in one transaction. Nothing to send when
 * the push is older than its TTL, the session has ended or its account is banned, or the
 * notification is read, hidden (its entry deleted or removed, its author muted) or gone.
 */
function takeQueued(db: Db, row: Queued, now: number): (PushTarget & PushedNotification) | undefined {
  return db.tx(() => {
    db.run('DELETE FROM push_outbox WHERE id = ?', row.id);
    if (row.created_at < now - pushTtlSeconds) return undefined;
    return db.one<PushTarget & PushedNotification>(
      `SELECT d.endpoint, d.p256dh, d.auth, n.kind, n.pid, coalesce(a.username, '') AS username, e.content, e.filepath
       FROM push_devices d
       JOIN sessions s ON s.public_id = d.session_id AND s.expires > ?
       JOIN users u ON u.uid = d.uid AND ${noBanInForce}
       JOIN notifications n ON n.id = ? AND n.uid = d.uid AND n.read = 0
       JOIN entries e ON e.pid = n.pid AND e.deleted = 0
       LEFT JOIN users a ON a.uid = e.uid
       WHERE d.session_id = ?
         AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = n.uid AND m.muted_uid = n.actor_uid)`,
      now,
      now,
      row.notification_id,
      row.session_id,
    );
  });
}

/** Starts the job; the VAPID keys are made now on a board's first start. */
export function startPushQueue(app: JobDeps & { config: Config }, options: PushOptions = {}): PushQueue {
  const { db, clock, log, config } = app;
  const keys: VapidKeys = vapidKeys(db, clock.now());
  const sender: PushSender = createPushSender({
    allow: config.previewAllow,
    ports: config.previewPorts,
    origin: config.origin,
    timeoutMs: options.timeoutMs,
    resolve: options.resolve,
  });
  const controller = new AbortController();
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();
  const outcomes: Record<PushOutcome, number> = { delivered: 0, gone: 0, blocked: 0, failed: 0, skipped: 0 };
  let stopping = false;

  const deliver = async (row: Queued, target: PushTarget & PushedNotification) => {
    const { result, detail } = await sender.send(target, JSON.stringify(pushPayload(target)), keys, controller.signal);
    outcomes[result]++;
    // The endpoint's origin names the push service, never the reader; the rest of it is the browser's secret.
    if (result !== 'delivered') log(`push to ${new URL(target.endpoint).origin}: ${result}: ${detail}`);
    if (result === 'gone' || result === 'blocked') dropPushDevice(db, row.session_id);
  };

  const pump = () => {
    while (!stopping && running.size < pushConcurrency) {
      let row: Queued | undefined;
      let target: (PushTarget & PushedNotification) | undefined;
      try {
        row = nextQueued(db, busy);
        if (!row) return;
        target = takeQueued(db, row, clock.now());
      } catch (err) {
        log(`push queue: ${(err as Error).message}`);
        return;
      }
      if (!target) {
        outcomes.skipped++;
        continue;
      }
      const device = row.session_id;
      busy.add(device);
      const run: Promise<void> = deliver(row, target)
        .catch((err: Error) => log(`push queue: ${err.message}`))
        .finally(() => {
          busy.delete(device);
          running.delete(run);
          pump();
        });
      running.add(run);
    }
  };

  const timer = setInterval(() => {
    if (!stopping) pump();
  }, options.pollMs ?? 1_000);
  timer.unref();

  return {
    wake() {
      setImmediate(pump);
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      controller.abort();
      await settleWithin(running, stopGraceMs);
      await sender.close();
    },
    stats: () => ({ running: running.size, outcomes }),
  };
}
