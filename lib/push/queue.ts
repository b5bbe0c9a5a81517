import type { Config } from '../config.ts';
import { settleWithin } from '../host/settle.ts';
import type { Db } from '../db/db.ts';
import type { Resolver } from '../outgoing/client.ts';
import { noBanInForce } from '../accounts/bans.ts';

import { dropPushDevice } from './devices.ts';
import { vapidKeys, type VapidKeys } from './keys.ts';
import { pushPayload, type PushedNotification } from './message.ts';
import {
  createPushSender,
  pushTtlSeconds,
  retryAfterSeconds,
  type PushAnswer,
  type PushSender,
  type PushTarget,
} from './send.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * The push sender (docs/API.md "Web Push"), a once-job like the preview queue: a trigger queues a
 * row in push_outbox for each push device of an account that gets a notification, in the
 * transaction that wrote it, and this job sends them off the request path, so a slow or dead push
 * service never delays a request or another job. At most pushConcurrency pushes are on their way,
 * one per device; a passing failure (429, a 5xx, no connection or answer) brings the row back
 * later, up to pushTries; any other failure is logged. BOARD_PUSH=0: nothing is sent.
 */

export interface PushOptions {
  timeoutMs?: number;
  pollMs?: number;
  resolve?: Resolver;
}

/** Pushes on their way at once: enough for a small board, few enough that hung services cost little. */
export const pushConcurrency = 4;
/**
 * Tries per push. Why 4: a push service's hiccup (a restart, a burst of 503s, a rate limit) passes
 * within minutes, which three more doubling waits cover; a service down for longer gets no more
 * traffic, and the notification page has it all.
 */
export const pushTries = 4;
export const pushRetrySeconds = 30;
/**
 * A service's Retry-After is honoured up to this: a hostile or broken endpoint cannot park a
 * device's queue for a day.
 */
export const maxRetryAfterSeconds = 600;
export const maxQueuedPerDevice = 20;

/**
 * Seconds until the next try of a push that has had `tries` tries: the doubling back-off, or the
 * service's Retry-After when that is longer, up to maxRetryAfterSeconds. Why never shorter than
 * the back-off: a Retry-After of 0 must not turn the tries into a burst.
 */
export function retryDelaySeconds(tries: number, retryAfter: number | undefined): number {
  const backoff = pushRetrySeconds * 2 ** (tries - 1);
  return Math.max(backoff, Math.min(retryAfter ?? 0, maxRetryAfterSeconds));
}
const stopGraceMs = 5_000;

export type PushOutcome = 'delivered' | 'gone' | 'blocked' | 'retried' | 'failed' | 'skipped';

export interface PushQueue {
  wake(): void;
  stop(): Promise<void>;
  stats(): { running: number; outcomes: Readonly<Record<PushOutcome, number>> };
}

interface Queued {
  id: number;
  session_id: string;
  notification_id: number;
  created_at: number;
  tries: number;
}

function nextQueued(db: Db, busy: Set<string>, now: number): Queued | undefined {
  return db.one<Queued>(
    `SELECT id, session_id, notification_id, created_at, tries FROM push_outbox
     WHERE not_before <= ? AND session_id NOT IN (SELECT value FROM json_each(?)) ORDER BY created_at, id LIMIT 1`,
    now,
    JSON.stringify([...busy]),
  );
}

function queueAgain(db: Db, row: Queued, retryAfter: number | undefined, now: number): number | undefined {
  const tries = row.tries + 1;
  if (tries >= pushTries) return undefined;
  const due = now + retryDelaySeconds(tries, retryAfter);
  return db.tx(() => {
    const queued = db.run(
      `INSERT INTO push_outbox (session_id, notification_id, created_at, tries, not_before)
       SELECT session_id, ?, ?, ?, ? FROM push_devices
       WHERE session_id = ? AND (SELECT count(*) FROM push_outbox WHERE session_id = ?) < ?`,
      row.notification_id,
      row.created_at,
      tries,
      due,
      row.session_id,
      row.session_id,
      maxQueuedPerDevice,
    ).changes;
    if (!queued) return undefined;
    db.run('UPDATE push_outbox SET not_before = max(not_before, ?) WHERE session_id = ?', due, row.session_id);
    return due;
  });
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
  const outcomes: Record<PushOutcome, number> = {
    delivered: 0,
    gone: 0,
    blocked: 0,
    retried: 0,
    failed: 0,
    skipped: 0,
  };
  let stopping = false;

  const deliver = async (row: Queued, target: PushTarget & PushedNotification) => {
    const answer = await sender.send(target, JSON.stringify(pushPayload(target)), keys, controller.signal);
    const outcome = settle(row, answer);
    outcomes[outcome.result]++;
    if (outcome.result !== 'delivered')
      log(`push to ${new URL(target.endpoint).origin}: ${outcome.result}: ${answer.detail}${outcome.note}`);
  };

  const settle = (row: Queued, answer: PushAnswer): { result: PushOutcome; note: string } => {
    if (answer.result === 'gone' || answer.result === 'blocked') dropPushDevice(db, row.session_id);
    if (answer.result !== 'unavailable') return { result: answer.result, note: '' };
    const now = clock.now();
    const due = queueAgain(db, row, retryAfterSeconds(answer.retryAfter, now), now);
    return due === undefined
      ? { result: 'failed', note: ` (try ${row.tries + 1} of ${pushTries}; given up)` }
      : { result: 'retried', note: ` (try ${row.tries + 1} of ${pushTries}; next in ${due - now} s)` };
  };

  const pump = () => {
    while (!stopping && running.size < pushConcurrency) {
      let row: Queued | undefined;
      let target: (PushTarget & PushedNotification) | undefined;
      try {
        row = nextQueued(db, busy, clock.now());
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
