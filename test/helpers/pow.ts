import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Client } from './client.ts';

/** Proof of work in tests (docs/API.md "Proof of work"): a challenge of the board, solved with altcha-lib. */

/** The `altcha` field for a challenge: base64 of JSON {challenge, solution}. */
export async function solveAltcha(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the challenge was not solved');
  return Buffer.from(
    JSON.stringify({ challenge, solution: { counter: solution.counter, derivedKey: solution.derivedKey } }),
  ).toString('base64');
}

/** Fetches a challenge from the board through `client` and solves it. */
export async function solvedAltcha(client: Client): Promise<string> {
  const answer = await client.get('/api/auth/challenge');
  if (answer.status !== 200) throw new Error(`GET /api/auth/challenge: ${answer.status} ${answer.text}`);
  return solveAltcha(answer.body as Challenge);
}
