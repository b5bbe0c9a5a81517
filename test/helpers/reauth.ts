import type { TestBoard } from './board.ts';
import type { Client } from './client.ts';
import { assertError } from './errors.ts';
import { password, visitor } from './members.ts';

/**
 * A step that asks for the account's password again (a new passkey, new recovery codes): a stolen
 * session alone gets nowhere. POST `confirmPath` with a wrong or without a pass1 answers 403
 * auth.bad_password on pass1; without a session, POST `confirmPath` (with the right password) and
 * GET `listPath` answer 401 auth.required.
 */
export async function assertPasswordAndSessionRequired(
  board: TestBoard,
  client: Client,
  confirmPath: string,
  listPath: string,
): Promise<void> {
  assertError(await client.post(confirmPath, { pass1: 'falsch falsch' }), 403, 'auth.bad_password', 'pass1');
  assertError(await client.post(confirmPath), 403, 'auth.bad_password', 'pass1');
  assertError(await visitor(board).post(confirmPath, { pass1: password }), 401, 'auth.required');
  assertError(await visitor(board).get(listPath), 401, 'auth.required');
}
