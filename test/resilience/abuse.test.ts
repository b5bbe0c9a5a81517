import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { openDb, type Db } from '../../lib/db/db.ts';
import { maxReplyDepth } from '../../lib/product.ts';
import { createEntry } from '../../lib/entries/entries.ts';
import { createScryptPasswords } from '../../lib/accounts/passwords.ts';
import { createUser } from '../../lib/accounts/users.ts';
import { writeLimitRules } from '../../lib/limits/write-limits.ts';
import { Client, imageFixture, password, sessionInDb, type Answer, emptyFolder } from '../helpers.ts';
import { startServerProcess, type ChildServer } from '../helpers/child-server.ts';
import { recordSummary, scaled, soak } from './soak.ts';

/**
 * The abuse review as a scripted attack on a real server (its own process, BOARD_LIMITS=1): one
 * account posting as fast as it can, ten fresh accounts, a burst of logins from 100 addresses, a
 * deep reply chain and an animated-GIF flood, while an honest client reads and posts. Asserted are
 * counts only, none per unit of time, so a slow or busy machine proves the same: every attacker
 * is held to its limits, and each of the honest client's fixed number of requests is answered
 * 2xx while the attack runs. `make soak` runs it longer and prints the honest client's read
 * latency with and without the attack (never asserted).
 */
const createPerMinute = writeLimitRules.create.account[0][0];
/** The honest client's rounds: two reads each, a post and a vote on some. */
const honestRounds = scaled(30, 300);
/**
 * The honest posts, spread over the rounds: fewer than an account's creates in a minute, so
 * however fast or slow the rounds go, no honest write can meet a limit (a refused one fails the test).
 */
const honestPostEvery = Math.ceil(honestRounds / (createPerMinute - 1));
const honestPosts = Math.ceil(honestRounds / honestPostEvery);
/**
 * The bound on each attacker's requests (every test is bounded in count). Both sides send one
 * request at a time to the same server, so an attacker sends a few per honest request on any
 * machine; a hundred times the honest rounds is never reached while the honest client runs.
 */
const attackCap = honestRounds * 100;

let dataDir: string;
let server: ChildServer;
let db: Db;
let serverErrors = 0;
const established: Record<'honest' | 'spammer' | 'chain' | 'gif', Client> = {} as never;
let deepLeaf = 0;
let honestRoot = 0;

let addressCounter = 0;
const freshAddress = () => `198.18.${100 + (++addressCounter >> 8)}.${addressCounter & 255}`;

/**
 * An attacker's request. A refusal before the body is read closes the connection while the client
 * still sends (an upload), which fetch reports as a network error: counted as `network`.
 */
async function attack(send: () => Promise<Answer>): Promise<Answer> {
  try {
    return await send();
  } catch {
    return { status: 0, headers: new Headers(), body: undefined, text: '' };
  }
}

function tally(counts: Map<string, number>, answer: Answer): Answer {
  const key =
    answer.status === 429 || answer.status === 400 || answer.status === 503
      ? `${answer.status} ${answer.body?.error?.code}`
      : String(answer.status);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  if (answer.status >= 500 && answer.status !== 503) serverErrors++;
  return answer;
}

before(async () => {
  dataDir = emptyFolder('board-abuse-');
  // Established accounts (two days old) and their sessions, straight in the database before the server starts.
  db = openDb(join(dataDir, 'board.db'));
  const now = Math.floor(Date.now() / 1000);
  const hash = await createScryptPasswords().hash(password, 14);
  const uids: Record<string, number> = {};
  const cookies: Record<string, string> = {};
  for (const name of ['honest', 'spammer', 'chain', 'gif'] as const) {
    uids[name] = createUser(db, `abuse ${name}`, hash, now - 2 * 86_400)!;
    cookies[name] = sessionInDb(db, uids[name]!, now, 86_400, 'abuse test');
  }
  let parent = 0;
  for (let depth = 0; depth <= maxReplyDepth; depth++)
    parent = createEntry(
      db,
      { uid: uids.chain!, content: `Tiefe ${depth}`, filepath: '', replyTo: parent, link: '' },
      now - 86_400,
    )!;
  deepLeaf = parent;
  honestRoot = createEntry(
    db,
    { uid: uids.honest!, content: 'Ein ehrliches Thema', filepath: '', replyTo: 0, link: '' },
    now - 86_400,
  )!;
  server = await startServerProcess(dataDir, { BOARD_LIMITS: '1' });
  for (const name of ['honest', 'spammer', 'chain', 'gif'] as const) {
    established[name] = new Client(server.url, freshAddress());
    established[name].cookie = cookies[name]!;
  }
});

after(async () => {
  recordSummary({ serverErrors });
  server?.process.kill('SIGTERM');
  await server?.exited;
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The honest requests of one run: two reads a round, and a post and a vote every honestPostEvery rounds. */
const honestRequests = honestRounds * 2 + honestPosts * 2;

/**
 * The honest client: its fixed rounds, one request at a time; `answered` counts the 2xx, `failed`
 * names the others. `posts` false: reads only (the soak's quiet baseline, whose posts would share
 * the account's create limit with the run under attack).
 */
async function honestClient(posts = true): Promise<{ answered: number; failed: string[]; readMs: number[] }> {
  const honest = established.honest;
  const failed: string[] = [];
  const readMs: number[] = [];
  let answered = 0;
  const expect = (what: string, answer: Answer, status: number) => {
    if (answer.status === status) answered++;
    else failed.push(`${what}: ${answer.status} ${answer.text}`);
  };
  for (let round = 0; round < honestRounds; round++) {
    for (const path of ['/api/entry/feed/0', `/api/entry/${honestRoot}/thread`]) {
      const started = performance.now();
      const answer = await honest.get(path);
      readMs.push(performance.now() - started);
      expect(path, answer, 200);
    }
    if (posts && round % honestPostEvery === 0) {
      expect(
        'create',
        await honest.post('/api/entry/create', { content: `Ehrliche Antwort ${round}`, reply_to: honestRoot }),
        201,
      );
      expect('vote', await honest.post(`/api/entry/${honestRoot}/vote`, { mode: 'yes' }), 200);
    }
  }
  return { answered, failed, readMs };
}

/**
 * An attacker's loop, sized by count, not by time: it goes on while the honest client runs (so
 * every honest request meets the attack) and until `done()` says it has met the limit under test,
 * at most attackCap requests. Returns whether the honest client had finished when it stopped.
 */
async function attackWhileHonest(
  honestRunning: () => boolean,
  done: () => boolean,
  step: (i: number) => Promise<unknown>,
): Promise<boolean> {
  for (let i = 0; i < attackCap && (honestRunning() || !done()); i++) await step(i);
  return !honestRunning();
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

describe('a scripted attack against a running server', () => {
  test(`every attacker is held to its limits, and all ${honestRequests} requests of the honest client, made while the attack runs, are answered 2xx`, {
    timeout: scaled(300_000, 1_200_000),
  }, async () => {
    const baseline = soak ? await honestClient(false) : undefined;

    // Ten fresh accounts, each from its own address (within SPEC's limits).
    const fresh: Client[] = [];
    for (let i = 0; i < 10; i++) {
      const client = new Client(server.url, freshAddress());
      await client.signUp(`frisch ${i}`);
      fresh.push(client);
    }
    const gif = await imageFixture({
      format: 'gif',
      width: 32,
      height: 32,
      frames: Array.from({ length: 301 }, (_, i) => `#${((i * 37) % 4096).toString(16).padStart(3, '0')}`),
    });

    const counts = {
      spammer: new Map<string, number>(),
      fresh: new Map<string, number>(),
      logins: new Map<string, number>(),
      chain: new Map<string, number>(),
      gif: new Map<string, number>(),
    };
    const freshCreated = fresh.map(() => 0);
    let chainParent = deepLeaf - 1; // one level above the deepest: its replies are allowed, deeper ones not
    let chainDepthRefused = 0;

    let honestRunning = true;
    const running = () => honestRunning;
    const seen = (map: Map<string, number>, key: string) => () => (map.get(key) ?? 0) > 0;
    const attackStarted = Date.now();
    // The login burst is a count of its own: 100 addresses, 3 guesses each.
    const loginBurst = Promise.all(
      Array.from({ length: 100 }, async () => {
        const attacker = new Client(server.url, freshAddress());
        for (let i = 0; i < 3; i++)
          tally(
            counts.logins,
            await attack(() => attacker.post('/api/auth/login', { user: 'abuse honest', pass: `geraten ${i}` })),
          );
      }),
    );
    const [honest, ...ranThroughout] = await Promise.all([
      honestClient().finally(() => {
        honestRunning = false;
      }),
      attackWhileHonest(running, seen(counts.spammer, '429 rate.limited'), async (i) =>
        tally(
          counts.spammer,
          await attack(() => established.spammer.post('/api/entry/create', { content: `Spam Nummer ${i}` })),
        ),
      ),
      ...fresh.map((client, k) =>
        attackWhileHonest(running, seen(counts.fresh, '429 rate.new_account'), async (i) => {
          const answer = tally(
            counts.fresh,
            await attack(() =>
              client.post('/api/entry/create', {
                content: i % 2 ? `Billig kaufen https://spam.example/${k}/${i}` : `Hallo von ${k}, Nummer ${i}`,
              }),
            ),
          );
          if (answer.status === 201) freshCreated[k]!++;
        }),
      ),
      attackWhileHonest(
        running,
        () => chainDepthRefused > 0,
        async (i) => {
          const replyTo = i % 5 === 0 ? deepLeaf : chainParent;
          const answer = tally(
            counts.chain,
            await attack(() =>
              established.chain.post('/api/entry/create', { content: `tiefer ${i}`, reply_to: replyTo }),
            ),
          );
          if (answer.status === 201) chainParent = answer.body.pid;
          if (answer.status === 400 && answer.body.error.code === 'entry.too_deep') chainDepthRefused++;
        },
      ),
      attackWhileHonest(running, seen(counts.gif, '413'), async () =>
        tally(
          counts.gif,
          await attack(() =>
            established.gif.postMultipart('/api/entry/create', { content: '' }, [
              { name: 'file', filename: 'flut.gif', type: 'image/gif', data: gif },
            ]),
          ),
        ),
      ),
    ]);
    await loginBurst;
    // The limits count in fixed windows; the attack, however long it took on this machine, spans at most this many.
    const windows = Math.floor((Date.now() - attackStarted) / 60_000) + 2;
    const perMinute = (limit: number) => limit * windows;

    const summary = Object.fromEntries(Object.entries(counts).map(([who, map]) => [who, Object.fromEntries(map)]));
    const note = JSON.stringify(summary);
    assert.equal(serverErrors, 0, note);
    assert.deepEqual(honest.failed, [], 'every honest request answered as asked');
    assert.equal(honest.answered, honestRequests, 'the honest client made all its requests');
    assert.deepEqual(
      ranThroughout,
      ranThroughout.map(() => true),
      `every attacker went on until the honest client was done: ${note}`,
    );

    assert.ok((counts.spammer.get('201') ?? 0) <= perMinute(createPerMinute), `the spammer: ${note}`);
    assert.ok((counts.spammer.get('429 rate.limited') ?? 0) > 0, note);
    for (const created of freshCreated)
      assert.ok(created <= perMinute(Math.round(createPerMinute / 3)), `a fresh account posted ${created}: ${note}`);
    assert.ok((counts.fresh.get('429 rate.new_account') ?? 0) > 0, `fresh accounts' links are held: ${note}`);
    assert.equal(counts.logins.get('200') ?? 0, 0, note);
    assert.ok(
      (counts.logins.get('429 rate.limited') ?? 0) + (counts.logins.get('503 auth.busy') ?? 0) > 0,
      `the login burst is braked: ${note}`,
    );
    assert.ok((counts.chain.get('201') ?? 0) <= perMinute(createPerMinute), `the chain: ${note}`);
    assert.ok(chainDepthRefused > 0, `replies below depth 200 are refused: ${note}`);
    assert.equal(counts.gif.get('201') ?? 0, 0, `no GIF of the flood is stored: ${note}`);
    assert.ok((counts.gif.get('413') ?? 0) > 0, note);
    assert.equal(db.one<{ n: number }>("SELECT count(*) AS n FROM entries WHERE filepath <> ''")!.n, 0);

    const attacked = { p50: percentile(honest.readMs, 0.5), p99: percentile(honest.readMs, 0.99) };
    if (baseline) {
      const quiet = { p50: percentile(baseline.readMs, 0.5), p99: percentile(baseline.readMs, 0.99) };
      console.log(
        `abuse: honest reads without the attack p50 ${quiet.p50.toFixed(1)} ms, p99 ${quiet.p99.toFixed(1)} ms; ` +
          `under the attack p50 ${attacked.p50.toFixed(1)} ms, p99 ${attacked.p99.toFixed(1)} ms ` +
          `(ratio p50 ${(attacked.p50 / quiet.p50).toFixed(2)}, p99 ${(attacked.p99 / quiet.p99).toFixed(2)}); counts ${note}`,
      );
    }
  });
});
