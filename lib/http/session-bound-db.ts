import type { Db } from '../db/db.ts';

/**
 * The database as a request's handler sees it (`ctx.app.db`): reads pass as they are, and every
 * write runs in a transaction that first calls `recheck` inside it. Why: a request checks its
 * session (and a moderator's role) when it arrives, then waits for its body, an image, a hash; a
 * ban, logout, revoke, password change or demotion may commit meanwhile and must stand, so
 * `recheck` throws (401, 403) and the write rolls back. Why here: every write of every handler,
 * those to come included, goes through this object, so none can forget it: db.tx, db.run, a write
 * statement read with one/all/value, and each txBatched write. Cost: one indexed read per write
 * transaction.
 */
export function sessionBoundDb(db: Db, recheck: () => void): Db {
  let checked = 0;
  const rechecked =
    <T>(fn: () => T) =>
    (): T => {
      if (checked > 0) return fn();
      recheck();
      checked++;
      try {
        return fn();
      } finally {
        checked--;
      }
    };
  const write = <T>(fn: () => T): T => (checked > 0 ? fn() : db.tx(rechecked(fn)));
  const reads = (sql: string) => checked > 0 || db.isReadOnly(sql);
  return {
    one: <T>(sql: string, ...params: unknown[]) =>
      reads(sql) ? db.one<T>(sql, ...params) : write(() => db.one<T>(sql, ...params)),
    all: <T>(sql: string, ...params: unknown[]) =>
      reads(sql) ? db.all<T>(sql, ...params) : write(() => db.all<T>(sql, ...params)),
    value: <T>(sql: string, ...params: unknown[]) =>
      reads(sql) ? db.value<T>(sql, ...params) : write(() => db.value<T>(sql, ...params)),
    run: (sql, ...params) => write(() => db.run(sql, ...params)),
    isReadOnly: db.isReadOnly,
    tx: (fn) => write(fn),
    txBatched: (fn) => db.txBatched(rechecked(fn)),
    beforeCommit: db.beforeCommit,
    batchTally: db.batchTally,
    setFault: db.setFault,
    raw: db.raw,
    changes: db.changes,
    onChange: db.onChange,
    events: db.events,
    onEvent: db.onEvent,
    dataVersionNow: db.dataVersionNow,
    close: db.close,
  };
}
