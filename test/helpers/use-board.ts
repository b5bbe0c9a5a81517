import { after, before } from 'node:test';
import { startProxiedBoard, type StartOptions, type TestBoard } from './board.ts';
import type { Client } from './client.ts';
import { member, register } from './members.ts';
import { moderator } from './moderators.ts';

type Env = Record<string, string>;

export interface BoardSetup<M extends string> {
  /**
   * Runs first, for what the board needs before it starts (a file it reads, a fake site). At a
   * file's top level it must be here, not in a `before` of its own: Node 20 starts top-level
   * hooks without waiting for the one before.
   */
  prepare?: () => void | Promise<void>;
  /** BOARD_* variables on top of BOARD_TRUST_PROXY=1; a function is called after `prepare` (e.g. for a fake site's port). */
  env?: Env | (() => Env);
  /** startBoard's options; a function is called after `prepare`. */
  start?: StartOptions | (() => StartOptions);
  /** Registered only, in this order: no session, last_login stays 0. */
  users?: readonly string[];
  /** Registered and logged in for a year, in this order, each from an address of its own. */
  members?: readonly M[];
  /** Members that are moderators too (signed up after `members`). */
  moderators?: readonly M[];
}

export interface UsedBoard<M extends string> {
  /** The running board. */
  board: TestBoard;
  /** Each member's logged-in client, by username. */
  members: Record<M, Client>;
}

/**
 * The usual set-up of a suite: call it at the top of a `describe` (or of a file). Its `before`
 * starts a board behind a trusted proxy and signs up the users and members; its `after` closes
 * the board. The returned object is filled once `before` has run, so read it inside tests and
 * later hooks only (`t.board`, `t.members.Anna`). Hooks added after it run after it.
 */
export function useBoard<const M extends string = never>(setup: BoardSetup<M> = {}): UsedBoard<M> {
  const used = { members: {} } as UsedBoard<M>;
  before(async () => {
    await setup.prepare?.();
    const env = typeof setup.env === 'function' ? setup.env() : setup.env;
    const start = typeof setup.start === 'function' ? setup.start() : setup.start;
    used.board = await startProxiedBoard(env, start);
    for (const name of setup.users ?? []) await register(used.board, name);
    for (const name of setup.members ?? []) used.members[name] = await member(used.board, name);
    for (const name of setup.moderators ?? []) used.members[name] = await moderator(used.board, name);
  });
  after(async () => {
    if (!used.board) return;
    // A test that failed while a database fault was on must not break the close.
    used.board.app.services.db.setFault(undefined);
    await used.board.close();
  });
  return used;
}
