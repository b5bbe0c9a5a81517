import Database from 'better-sqlite3';
import { migrate } from './schema.ts';

type Params = unknown[];

/** The tiny SQL helper every domain function takes as its first argument. */
export interface Db {
  /** First row or undefined. */
  one<T>(sql: string, ...params: Params): T | undefined;
  all<T>(sql: string, ...params: Params): T[];
  run(sql: string, ...params: Params): { changes: number; lastInsertRowid: number };
  /** Runs fn in one transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T;
  /** Test hook: while set, every statement throws the returned error (simulates a broken disk). */
  setFault(fault: ((sql: string) => Error | undefined) | undefined): void;
  readonly raw: Database.Database;
  close(): void;
}

/** Opens (and migrates) the database: WAL, foreign keys, busy timeout, statements cached by text. */
export function openDb(path: string): Db {
  const raw = new Database(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  migrate(raw);

  const cache = new Map<string, Database.Statement>();
  let fault: ((sql: string) => Error | undefined) | undefined;

  function prepare(sql: string): Database.Statement {
    const failure = fault?.(sql);
    if (failure) throw failure;
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = raw.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  }

  return {
    one: <T>(sql: string, ...params: Params) => prepare(sql).get(...params) as T | undefined,
    all: <T>(sql: string, ...params: Params) => prepare(sql).all(...params) as T[],
    run(sql, ...params) {
      const r = prepare(sql).run(...params);
      return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
    },
    tx: (fn) => raw.transaction(fn)(),
    setFault(f) { fault = f; },
    raw,
    close() {
      if (raw.open) raw.close();
    },
  };
}
