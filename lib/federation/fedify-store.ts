import type {
  KvKey,
  KvStore,
  KvStoreListEntry,
  KvStoreSetOptions,
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';
import type { Db } from '../db/db.ts';

/**
 * Fedify's key-value store and message queue on the board's SQLite (tables fedify_kv and
 * fedify_queue, lib/db/schema.ts migration 19), so federation needs no Redis and survives a
 * restart like everything else. Fedify keeps in the store what it caches (remote documents, keys)
 * and the ids of activities it has handled (so a retried delivery is handled once); the queue holds
 * inbox work past the answer. Times here are Fedify's own (Unix milliseconds of the wall clock).
 */

/** Rows the store keeps at most: past it, the ones that expire first go (Fedify can fetch a document again). */
export const maxKvRows = 50_000;
/** Messages that may wait: past it, enqueue refuses and the remote server's delivery fails, to be tried again later. */
export const maxQueuedMessages = 10_000;

const keyText = (key: KvKey): string => JSON.stringify(key);
const ttlMs = (options?: KvStoreSetOptions): number =>
  options?.ttl ? Math.max(1, Math.round((options.ttl as { total(unit: string): number }).total('millisecond'))) : 0;

/** The KvStore on fedify_kv: the key's parts as a JSON array, the value as JSON, an expiry in ms (0: none). */
export function sqliteKvStore(db: Db): KvStore {
  const read = (key: KvKey): { value: string } | undefined =>
    db.one<{ value: string }>(
      'SELECT value FROM fedify_kv WHERE key = ? AND (expires = 0 OR expires > ?)',
      keyText(key),
      Date.now(),
    );
  const write = (key: KvKey, value: unknown, options?: KvStoreSetOptions) => {
    const ttl = ttlMs(options);
    db.tx(() => {
      db.run(
        `INSERT INTO fedify_kv (key, value, expires) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
        keyText(key),
        JSON.stringify(value ?? null),
        ttl ? Date.now() + ttl : 0,
      );
      trimKv(db);
    });
  };
  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      const row = read(key);
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set(key, value, options) {
      write(key, value, options);
    },
    async delete(key) {
      db.run('DELETE FROM fedify_kv WHERE key = ?', keyText(key));
    },
    async cas(key, expected, value, options) {
      return db.tx(() => {
        const row = read(key);
        const current = row ? row.value : JSON.stringify(undefined);
        if (current !== JSON.stringify(expected)) return false;
        write(key, value, options);
        return true;
      });
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      // A key under the prefix is its JSON text without the closing bracket, then "]" or ",".
      const start = prefix ? keyText(prefix).slice(0, -1) : '[';
      const rows = db.all<{ key: string; value: string }>(
        `SELECT key, value FROM fedify_kv
         WHERE (key = ? || ']' OR substr(key, 1, length(?) + 1) = ? || ',' OR ? = '[')
           AND (expires = 0 OR expires > ?) ORDER BY key`,
        start,
        start,
        start,
        start,
        Date.now(),
      );
      for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
    },
  };
}

/** Drops expired rows, then the soonest to expire past maxKvRows: the store is a cache, bounded like every other. */
function trimKv(db: Db): void {
  db.run('DELETE FROM fedify_kv WHERE expires <> 0 AND expires <= ?', Date.now());
  const rows = db.value('SELECT count(*) FROM fedify_kv');
  if (rows > maxKvRows)
    db.run(
      `DELETE FROM fedify_kv WHERE key IN (
         SELECT key FROM fedify_kv ORDER BY expires = 0, expires LIMIT ?)`,
      rows - maxKvRows,
    );
}

export interface SqliteQueueOptions {
  pollMs?: number;
}

/** The listeners waiting on a database in this process, whichever queue object they listen through. */
const listenersOf = new WeakMap<Db, Set<() => void>>();

/**
 * The MessageQueue on fedify_queue: an enqueue wakes this process's listeners at once, the poll finds
 * what another process queued. A message leaves the table before its handler runs (at most once;
 * Fedify retries a failed handler by queueing it again), in order among those due.
 */
export class SqliteMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  private readonly db: Db;
  private readonly pollMs: number;
  private readonly wakers: Set<() => void>;
  constructor(db: Db, options: SqliteQueueOptions = {}) {
    this.db = db;
    this.pollMs = options.pollMs ?? 1_000;
    let wakers = listenersOf.get(db);
    if (!wakers) listenersOf.set(db, (wakers = new Set()));
    this.wakers = wakers;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    const delay = options?.delay ? (options.delay as { total(unit: string): number }).total('millisecond') : 0;
    this.db.tx(() => {
      const waiting = this.db.value('SELECT count(*) FROM fedify_queue');
      if (waiting + messages.length > maxQueuedMessages)
        throw new Error(`federation queue: ${waiting} messages wait already; refused`);
      for (const message of messages)
        this.db.run(
          'INSERT INTO fedify_queue (message, not_before, ordering) VALUES (?, ?, ?)',
          JSON.stringify(message),
          Date.now() + Math.max(0, Math.round(delay)),
          options?.orderingKey ?? '',
        );
    });
    for (const wake of [...this.wakers]) wake();
  }

  async getDepth() {
    const queued = this.db.value('SELECT count(*) FROM fedify_queue');
    const ready = this.db.value('SELECT count(*) FROM fedify_queue WHERE not_before <= ?', Date.now());
    return { queued, ready, delayed: queued - ready };
  }

  private take(): unknown {
    return this.db.tx(() => {
      const row = this.db.one<{ id: number; message: string }>(
        'SELECT id, message FROM fedify_queue WHERE not_before <= ? ORDER BY not_before, id LIMIT 1',
        Date.now(),
      );
      if (!row) return undefined;
      this.db.run('DELETE FROM fedify_queue WHERE id = ?', row.id);
      return JSON.parse(row.message);
    });
  }

  async listen(handler: (message: unknown) => Promise<void> | void, options: MessageQueueListenOptions = {}) {
    const signal = options.signal;
    while (!signal?.aborted) {
      for (let message = this.take(); message !== undefined && !signal?.aborted; message = this.take()) {
        try {
          await handler(message);
        } catch {
          // Fedify has logged it and queued a retry where one is due.
        }
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, this.pollMs);
        this.wakers.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
}
