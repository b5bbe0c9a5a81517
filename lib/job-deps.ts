import type { Clock } from './clock.ts';
import type { Db } from './db.ts';

/** Where the board writes its lines; never a client address. */
export type Log = (line: string) => void;

/** What a background job needs and nothing more: the database, the time and the log. */
export interface JobDeps {
  db: Db;
  clock: Clock;
  log: Log;
}
