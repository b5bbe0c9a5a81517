import type { HttpMessageSignaturesSpec } from '@fedify/fedify/sig';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { JobDeps } from '../host/job-runs.ts';
import { settleWithin } from '../host/settle.ts';
import { activitiesOf, type BuiltActivity, type OutboxRow } from './activities.ts';
import { startDeliveryThread } from './delivery-thread.ts';
import { instanceAdmitted, instanceOf } from './instances.ts';
import { keyPairOf } from './keys.ts';
import { actorUri, boardIdentifier } from './objects.ts';
import { federates } from './outbox.ts';
import type { FederationRuntime } from './runtime.ts';

/**
 * The delivery job (docs/OPERATIONS.md "Federation"), a once-job outside every request: it turns
 * outbox rows into activities and one delivery per inbox (a shared inbox when the follower has
 * one), then hands each to the delivery thread (lib/federation/delivery-thread.ts), which signs it
 * and POSTs it through its guarded client; the event loop only picks, checks and settles. Why so
 * bounded: a dead or slow instance must delay only itself. At most `perInstance` requests are on
 * their way to one instance and `total` in all, each with its own timeout that covers the answer's
 * body too (a server that never answers holds its slot no longer). A failed delivery waits (1 minute,
 * doubling, at most 6 hours) and is tried again for up to two days, then given up and counted.
 * Every row lives in SQLite, so a restart goes on where it stopped.
 *
 * Signatures: RFC 9421 first, then draft-cavage `rsa-sha256` over `(request-target) host date
 * digest` (what Mastodon and NodeBB check) when the first is refused; the form an instance took is
 * remembered (federation_instances.signature), so later deliveries there need one knock.
 */

export interface DeliveryOptions {
  timeoutMs?: number;
  /** How often the job looks for work other processes queued (and retries that came due). Default 1 s. */
  pollMs?: number;
  perInstance?: number;
  total?: number;
}

/** How long a delivery is tried: two days, as Mastodon keeps trying a dead server's inbox. */
export const deliveryLifetimeSeconds = 2 * 86_400;
const firstRetrySeconds = 60;
const maxRetrySeconds = 6 * 3600;
/** Bytes of an answer read: enough for an error message, never a flood. */
const maxAnswerBytes = 16 * 1024;
const outboxBatch = 50;
const stopGraceMs = 5_000;

export function deliveryRetrySeconds(tries: number): number {
  return Math.min(maxRetrySeconds, firstRetrySeconds * 2 ** Math.max(0, tries - 1));
}

export interface DeliveryStats {
  running: number;
  outcomes: { delivered: number; retried: number; failed: number; dropped: number };
}

export interface DeliveryJob {
  wake(): void;
  stop(): Promise<void>;
  stats(): DeliveryStats;
}

interface Due {
  id: number;
  activity_id: number;
  inbox: string;
  host: string;
  created_at: number;
  tries: number;
  body: string;
  signer_uid: number;
  author_uid: number;
  kind: string;
}

/** Writes the activities of outbox rows and their deliveries, each row in one transaction with its removal. */
async function expandOutbox(db: Db, runtime: FederationRuntime, now: number): Promise<number> {
  const rows = db.all<OutboxRow>(
    'SELECT id, kind, actor_uid, pid, detail, created_at FROM federation_outbox ORDER BY id LIMIT ?',
    outboxBatch,
  );
  const ctx = runtime.context();
  for (const row of rows) {
    let built: BuiltActivity[] = [];
    try {
      built = await activitiesOf(db, ctx, row, now);
    } catch (err) {
      ctx.data.log(`federation: outbox row ${row.id} (${row.kind}): ${(err as Error).message}`);
    }
    db.tx(() => {
      for (const activity of built) addDeliveries(db, activity, row.actor_uid, now);
      db.run('DELETE FROM federation_outbox WHERE id = ?', row.id);
      // A deleted account's followers were told by the rows just written: the follows end with it.
      if (row.kind === 'delete_person') db.run('DELETE FROM federation_followers WHERE target_uid = ?', row.actor_uid);
    });
  }
  return rows.length;
}

/** Stores one activity of `authorUid`'s act (0 the Group's) and a delivery per receiving inbox. */
function addDeliveries(db: Db, activity: BuiltActivity, authorUid: number, now: number): void {
  const { lastInsertRowid: id } = db.run(
    'INSERT INTO federation_activities (body, signer_uid, author_uid, kind, created_at) VALUES (?, ?, ?, ?, ?)',
    JSON.stringify(activity.body),
    activity.signerUid,
    authorUid,
    activity.kind,
    now,
  );
  const { audience } = activity;
  if ('inboxes' in audience) {
    for (const inbox of audience.inboxes)
      db.run(
        'INSERT INTO federation_deliveries (activity_id, inbox, host, created_at) VALUES (?, ?, ?, ?)',
        id,
        inbox,
        instanceOf(inbox),
        now,
      );
  } else {
    db.run(
      `INSERT INTO federation_deliveries (activity_id, inbox, host, created_at)
       SELECT DISTINCT ?, CASE WHEN a.shared_inbox <> '' THEN a.shared_inbox ELSE a.inbox END, a.host, ?
       FROM federation_followers f JOIN remote_actors a ON a.id = f.actor_id
       WHERE f.target_uid IN (SELECT value FROM json_each(?))`,
      id,
      now,
      JSON.stringify(audience.followersOf),
    );
  }
  // An activity nobody receives is not kept (the trigger drops it with its last delivery).
  if (db.value('SELECT count(*) FROM federation_deliveries WHERE activity_id = ?', id) === 0)
    db.run('DELETE FROM federation_activities WHERE id = ?', id);
}

export function startDelivery(
  deps: JobDeps & { config: Config },
  runtime: FederationRuntime,
  options: DeliveryOptions = {},
): DeliveryJob {
  const { db, clock, log, config } = deps;
  const perInstance = options.perInstance ?? 2;
  const total = options.total ?? 16;
  const busy = new Map<string, number>();
  /** Deliveries on their way, by id: never started twice, even by two overlapping pumps. */
  const sending = new Set<number>();
  const running = new Set<Promise<void>>();
  const outcomes = { delivered: 0, retried: 0, failed: 0, dropped: 0 };
  let expanding = false;
  let stopping = false;
  let pumping = false;
  /**
   * The last look found nothing that may start, and the slots freed since: until work() clears it,
   * no freed slot means no look, since a look walks past a slow instance's whole backlog.
   */
  let dry = false;
  let freedWhileDry = 0;
  const thread = startDeliveryThread({ client: runtime.clientOptions, maxAnswerBytes });

  function post(row: Due, spec: HttpMessageSignaturesSpec): Promise<{ status: number; detail: string }> {
    const signer = row.signer_uid === 0 ? boardIdentifier : row.signer_uid;
    return thread.post(
      {
        inbox: row.inbox,
        body: row.body,
        keyId: `${actorUri(config.origin, signer).href}#main-key`,
        signer: row.signer_uid,
        spec,
      },
      async () => (await keyPairOf(db, row.signer_uid, 'RSASSA-PKCS1-v1_5', clock.now())).privateKey,
    );
  }

  /**
   * One delivery: the knock its instance took last (or RFC 9421), then the other form once when the
   * first is refused or fails (as some Mastodon versions did on RFC 9421).
   */
  async function deliver(row: Due): Promise<void> {
    const remembered = db.one<{ signature: string }>(
      'SELECT signature FROM federation_instances WHERE host = ?',
      row.host,
    )?.signature as HttpMessageSignaturesSpec | '' | undefined;
    const first: HttpMessageSignaturesSpec = remembered || 'rfc9421';
    let spec = first;
    let answer = await post(row, spec);
    if (answer.status >= 400 && answer.status !== 404 && answer.status !== 410 && !stopping) {
      spec = first === 'rfc9421' ? 'draft-cavage-http-signatures-12' : 'rfc9421';
      answer = await post(row, spec);
    }
    settle(row, answer, spec);
  }

  function settle(row: Due, answer: { status: number; detail: string }, spec: HttpMessageSignaturesSpec): void {
    const now = clock.now();
    if (answer.status >= 200 && answer.status < 300) {
      db.tx(() => {
        db.run('DELETE FROM federation_deliveries WHERE id = ?', row.id);
        db.run(
          `INSERT INTO federation_instances (host, signature, delivered, last_delivered) VALUES (?, ?, 1, ?)
           ON CONFLICT (host) DO UPDATE SET signature = excluded.signature, delivered = delivered + 1,
             last_delivered = excluded.last_delivered`,
          row.host,
          spec,
          now,
        );
      });
      outcomes.delivered++;
      return;
    }
    if (stopping) return; // the row stays as it was: the next start tries it again
    const gone = answer.status === 404 || answer.status === 410;
    if (gone || now - row.created_at >= deliveryLifetimeSeconds) {
      giveUp(row, gone ? answer.detail : `${answer.detail}; given up after ${row.tries + 1} tries`);
      return;
    }
    db.run(
      'UPDATE federation_deliveries SET tries = tries + 1, not_before = ? WHERE id = ?',
      now + deliveryRetrySeconds(row.tries + 1),
      row.id,
    );
    outcomes.retried++;
    log(`federation: delivery to ${row.host}: ${answer.detail}; try ${row.tries + 1}, again later`);
  }

  function giveUp(row: Due, why: string): void {
    db.tx(() => {
      db.run('DELETE FROM federation_deliveries WHERE id = ?', row.id);
      db.run(
        `INSERT INTO federation_instances (host, failed) VALUES (?, 1)
         ON CONFLICT (host) DO UPDATE SET failed = failed + 1`,
        row.host,
      );
    });
    outcomes.failed++;
    log(`federation: delivery to ${row.host} given up: ${why}`);
  }

  /**
   * Deliveries that may not go (any more): the instance is refused now, or the act's author stopped
   * federating. The author, not the signer: the Group's Announce of a banned member's act is theirs too.
   */
  function mayGo(row: Due): boolean {
    if (!instanceAdmitted(db, config.federation, row.host)) return false;
    const takedown = row.kind === 'delete' || row.kind === 'delete_person';
    return takedown || row.author_uid === 0 || federates(db, row.author_uid, clock.now());
  }

  /**
   * Starts the next due delivery when a slot is free, oldest first, none to an instance at its
   * bound, then asks for the next one on the event loop's next turn. Why one per turn: a reader's
   * request that came in meanwhile is answered between two starts, never behind a burst of them.
   */
  function pump(): void {
    if (pumping || stopping || running.size >= total) return;
    pumping = true;
    setImmediate(() => {
      pumping = false;
      try {
        if (startNext()) pump();
      } catch (err) {
        log(`federation: deliveries: ${(err as Error).message}`);
      }
    });
  }

  /** Starts one due delivery (dropping those that may not go); false when none is due or no slot is free. */
  function startNext(): boolean {
    while (!stopping && running.size < total) {
      if (dry && freedWhileDry === 0) return false;
      const full = [...busy].filter(([, n]) => n >= perInstance).map(([host]) => host);
      const row = db.one<Due>(
        `SELECT d.id, d.activity_id, d.inbox, d.host, d.created_at, d.tries, a.body, a.signer_uid, a.author_uid, a.kind
         FROM federation_deliveries d JOIN federation_activities a ON a.id = d.activity_id
         WHERE d.not_before <= ? AND d.host NOT IN (SELECT value FROM json_each(?))
           AND d.id NOT IN (SELECT value FROM json_each(?))
         ORDER BY d.not_before, d.id LIMIT 1`,
        clock.now(),
        JSON.stringify(full),
        JSON.stringify([...sending]),
      );
      if (!row) {
        dry = true;
        freedWhileDry = 0;
        return false;
      }
      if (!mayGo(row)) {
        db.run('DELETE FROM federation_deliveries WHERE id = ?', row.id);
        outcomes.dropped++;
        continue;
      }
      if (dry) freedWhileDry--;
      sending.add(row.id);
      busy.set(row.host, (busy.get(row.host) ?? 0) + 1);
      const run: Promise<void> = deliver(row)
        .catch((err: Error) => log(`federation: delivery to ${row.host}: ${err.message}`))
        .finally(() => {
          sending.delete(row.id);
          const left = (busy.get(row.host) ?? 1) - 1;
          if (left > 0) busy.set(row.host, left);
          else busy.delete(row.host);
          running.delete(run);
          if (dry) freedWhileDry++;
          pump();
        });
      running.add(run);
      return true;
    }
    return false;
  }

  /** Rows were added or time went on (retries come due): the next look walks the queue again. */
  function lookAgain(): void {
    dry = false;
    pump();
  }

  async function work(): Promise<void> {
    if (expanding || stopping) return;
    expanding = true;
    try {
      while (!stopping && (await expandOutbox(db, runtime, clock.now())) === outboxBatch) lookAgain();
    } catch (err) {
      log(`federation: outbox: ${(err as Error).message}`);
    } finally {
      expanding = false;
    }
    lookAgain();
  }

  const timer = setInterval(() => void work(), options.pollMs ?? 1_000);
  timer.unref();
  setImmediate(() => void work());
  return {
    wake() {
      setImmediate(() => void work());
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      thread.abort();
      await settleWithin(running, stopGraceMs);
      await thread.close();
    },
    stats: () => ({ running: running.size, outcomes: { ...outcomes } }),
  };
}
