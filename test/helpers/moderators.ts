import { setModerator } from '../../lib/moderation/accounts.ts';
import type { TestBoard } from './board.ts';
import type { Client } from './client.ts';
import { member } from './members.ts';
import { uidOf } from './stored.ts';

/** Moderation in tests: a logged-in moderator, made one straight in the database (the CLI has its own tests). */

/** Registers a user, logs in for a year and gives the account the moderator role. */
export async function moderator(board: TestBoard, username: string): Promise<Client> {
  const client = await member(board, username);
  makeModerator(board, username);
  return client;
}

/** Gives an existing account the moderator role, as `board-admin mod add` does. */
export function makeModerator(board: TestBoard, username: string): void {
  setModerator(board.app.services.db, uidOf(board, username), true, board.clock.now());
}

/** Every moderation log row straight from the database, newest first. */
export function modlogRows(board: TestBoard): {
  action: string;
  pid: number;
  uid: number;
  reason: string;
  until: number;
  moderator_uid: number;
  public: number;
}[] {
  return board.app.services.db.all(
    'SELECT action, pid, uid, reason, until, moderator_uid, public FROM modlog ORDER BY id DESC',
  );
}
