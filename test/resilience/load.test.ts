import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../../lib/accounts/users.ts';
import {
  assertError,
  limitsOff,
  sessionInDb,
  startProxiedBoard,
  type Answer,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { consistencyProblems } from '../helpers/consistency.ts';
import { prng, randomTools, recordSummary, scaled, seed } from './soak.ts';

/**
 * Load without loss, behind a trusted proxy: every client has its own X-Forwarded-For address,
 * so the per-IP limits stay on without turning the test into 429s. The voters' accounts and
 * sessions are created straight in the database (the run contract allows it for load tests: as bench/seed.ts does).
 */
const voters = 50;
const voteSeconds = scaled(3, 20);
const bumpRounds = scaled(3, 10);
const nameRounds = scaled(3, 20);
const racers = 20;

let board: TestBoard;
let clients: { client: Client; uid: number }[] = [];
const entries: number[] = [];
let serverErrors = 0;

function count(answer: Answer): Answer {
  if (answer.status >= 500) serverErrors++;
  return answer;
}

before(async () => {
  board = await startProxiedBoard(limitsOff);
  const { db } = board.app.services;
  const hash = await board.app.services.passwords.hash('load test password', 14);
  const now = board.clock.now();
  clients = Array.from({ length: voters }, (_, i) => {
    const uid = createUser(db, `voter ${i}`, hash, now)!;
    const client = board.client({ ip: `198.18.1.${i + 1}` });
    client.cookie = sessionInDb(db, uid, now, 86_400 * 365, 'load test');
    return { client, uid };
  });
  for (let i = 0; i < 5; i++) {
    const created = count(
      await clients[i]!.client.post('/api/entry/create', {
        content: `vote on me ${i}`,
        reply_to: i ? entries[0] : undefined,
      }),
    );
    assert.equal(created.status, 201, created.text);
    entries.push(created.body.pid);
  }
});

after(async () => {
  recordSummary({ serverErrors });
  await board.close();
});

describe('load without loss', () => {
  test(`${voters} concurrent clients voting on the same entries for ${voteSeconds} s: every tally equals its vote rows, one vote per user and entry`, {
    timeout: voteSeconds * 1000 + 60_000,
  }, async () => {
    const deadline = Date.now() + voteSeconds * 1000;
    const known = new Map<string, string>(); // `uid:pid` → the `selected` of the last answer
    let votes = 0;
    await Promise.all(
      clients.map(async ({ client, uid }, i) => {
        const r = randomTools(prng(seed + i));
        while (Date.now() < deadline) {
          const pid = r.pick(entries);
          const answer = count(await client.post(`/api/entry/${pid}/vote`, { mode: r.pick(['yes', 'no']) }));
          assert.equal(answer.status, 200, answer.text);
          known.set(`${uid}:${pid}`, answer.body.selected);
          votes++;
        }
      }),
    );

    const { raw } = board.app.services.db;
    assert.deepEqual(
      raw.prepare('SELECT pid, uid, count(*) AS n FROM votes GROUP BY pid, uid HAVING n > 1').all(),
      [],
      'at most one vote per user and entry',
    );
    for (const pid of entries) {
      const rows = raw
        .prepare('SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes WHERE pid = ?')
        .get(pid);
      const tally = count(await board.client().get(`/api/entry/${pid}/votes`));
      assert.deepEqual({ yes: tally.body.yes, no: tally.body.no }, rows, `entry ${pid}: tally against vote rows`);
    }
    // No lost update: each client's last answer is what the database holds.
    for (const [key, selected] of known) {
      const [uid, pid] = key.split(':').map(Number);
      const row = raw.prepare('SELECT yes FROM votes WHERE uid = ? AND pid = ?').get(uid, pid) as
        | { yes: number }
        | undefined;
      assert.equal(row === undefined ? 'none' : row.yes ? 'yes' : 'no', selected, `vote ${key}`);
    }
    assert.deepEqual(consistencyProblems(raw), []);
    console.log(`load: ${votes} votes by ${voters} clients in ${voteSeconds} s`);
    recordSummary({ votesCast: votes });
  });

  test(`concurrent bumps of one entry, ${bumpRounds} cooldowns: exactly one succeeds each time, the others get 429`, async () => {
    const created = count(await clients[0]!.client.post('/api/entry/create', { content: 'bump race' }));
    const pid = created.body.pid as number;
    for (let round = 1; round <= bumpRounds; round++) {
      const answers = await Promise.all(
        clients.slice(0, racers).map(({ client }) => client.post(`/api/entry/${pid}/bump`).then(count)),
      );
      const won = answers.filter((a) => a.status === 200);
      assert.equal(won.length, 1, `round ${round}: ${answers.map((a) => a.status).join(' ')}`);
      assert.equal(won[0]!.body.bump_count, round);
      for (const lost of answers.filter((a) => a.status !== 200)) {
        assertError(lost, 429, 'entry.bump_cooldown');
        assert.equal(lost.headers.get('retry-after'), String(lost.body.retry_after));
      }
      // One second before the cooldown ends, everyone still waits; then the next round may start.
      board.clock.advance(won[0]!.body.retry_after - 1);
      const early = await Promise.all(
        clients.slice(0, 5).map(({ client }) => client.post(`/api/entry/${pid}/bump`).then(count)),
      );
      assert.deepEqual(
        early.map((a) => a.status),
        [429, 429, 429, 429, 429],
      );
      board.clock.advance(1);
    }
    const row = board.app.services.db.one<{ bump_count: number }>('SELECT bump_count FROM entries WHERE pid = ?', pid)!;
    assert.equal(row.bump_count, bumpRounds, 'never two bumps inside one cooldown');
  });

  test(`concurrent registrations of one name (${nameRounds} names, ${racers} racers each, in any letter case): exactly one 201, the others 409`, async () => {
    for (let round = 0; round < nameRounds; round++) {
      const name = `Racer Name ${round}`;
      const spellings = [name, name.toLowerCase(), name.toUpperCase(), ` ${name.replace(/ /g, '  ')} `];
      const answers = await Promise.all(
        Array.from({ length: racers }, (_, i) =>
          board
            .client({ ip: `198.18.2${round % 10}.${i + 1}` })
            .post('/api/auth/newuser', {
              user: spellings[i % spellings.length],
              pass1: 'racer password 1',
              pass2: 'racer password 1',
            })
            .then(count),
        ),
      );
      assert.equal(
        answers.filter((a) => a.status === 201).length,
        1,
        `round ${round}: ${answers.map((a) => a.status).join(' ')}`,
      );
      for (const lost of answers.filter((a) => a.status !== 201)) {
        assertError(lost, 409, 'user.name_taken');
      }
      const rows = board.app.services.db.all('SELECT uid FROM users WHERE username_key = ?', name.toLowerCase());
      assert.equal(rows.length, 1);
    }
    assert.deepEqual(consistencyProblems(board.app.services.db.raw), []);
    assert.equal(serverErrors, 0);
  });
});
