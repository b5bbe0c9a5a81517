import assert from 'node:assert/strict';
import type { TestBoard } from './board.ts';
import type { Client } from './client.ts';
import { solvedAltcha } from './pow.ts';

/** The people of a test board: anonymous visitors, registered users and members, and what they post. */

/** The password of every test user (10 characters or more, as registration demands). */
export const password = 'correct horse battery';

let addressCounter = 0;
/** A fresh anonymous visitor with an address of its own (it counts behind a trusted proxy). */
export function visitor(board: TestBoard): Client {
  addressCounter++;
  return board.client({
    ip: `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`,
  });
}

/** Registers a user through the API, from `ip` or a fresh visitor's address; no session yet. */
export async function register(board: TestBoard, username: string, ip?: string): Promise<Client> {
  const client = ip ? board.client({ ip }) : visitor(board);
  // A board with BOARD_POW on asks for a solved challenge (docs/API.md "Proof of work").
  const altcha = board.config.pow > 0 ? await solvedAltcha(client) : undefined;
  const created = await client.post('/api/auth/newuser', { user: username, pass1: password, pass2: password, altcha });
  assert.equal(created.status, 201, created.text);
  return client;
}

/** Registers a user and logs in for a year (tests move the clock by days). */
export async function member(board: TestBoard, username: string, ip?: string): Promise<Client> {
  const client = await register(board, username, ip);
  const login = await client.post('/api/auth/login', { user: username, pass: password, timeout: 31_536_000 });
  assert.equal(login.status, 200, login.text);
  return client;
}

/** Creates an entry through the API and returns its pid. */
export async function post(client: Client, content: string, replyTo = 0): Promise<number> {
  const answer = await client.post('/api/entry/create', replyTo ? { content, reply_to: replyTo } : { content });
  assert.equal(answer.status, 201, answer.text);
  return answer.body.pid as number;
}
