import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { openDb, type Db } from '../../lib/db.ts';
import { createEntry, maxReplyDepth } from '../../lib/entries.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createUser } from '../../lib/users.ts';
import { writeLimitRules } from '../../lib/write-limits.ts';
import { Client, imageFixture, password, sessionInDb, type Answer } from '../helpers.ts';
import { startServerProcess, type ChildServer } from './child-server.ts';
import { recordSummary, scaled, soak } from './soak.ts';

/**
 * The abuse review as a scripted attack on a real server (its own process, BOARD_LIMITS=1): one
 * account posting as fast as it can, ten fresh accounts, a burst of logins from 100 addresses, a
 * deep reply chain and an animated-GIF flood, while an honest client keeps reading and posting.
 * Asserted are counts only: every attacker is held to its limits, every honest request is
 * answered and every honest write succeeds. `make soak` runs it longer and prints the honest
 * client's read latency with and without the attack (never asserted).
 */
const attackSeconds = scaled(10, 60);
/** Fixed windows the attack can span: each lets the per-minute limits start over once. */
const windows = Math.floor(attackSeconds / 60) + 2;
const perMinute = (limit: number) => limit * windows;
const createPerMinute = writeLimitRules.create.account[0][0];

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
  const key = answer.status === 429 || answer.status === 400 || answer.status === 503 ? `${answer.status} ${answer.body?.error?.code}` : String(answer.status);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  if (answer.status >= 500 && answer.status !== 503) serverErrors++;
  return answer;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'board-abuse-'));
  // Established accounts (two days old) and their sessions, straight in the database before the server starts.
  db = openDb(join(dataDir, 'board.db'));
  const now = Math.floor(Date.now() / 1000);
  const hash = await hashPassword(password, 14);
  const uids: Record<string, number> = {};
  const cookies: Record<string, string> = {};
  for (const name of ['honest', 'spammer', 'chain', 'gif'] as const) {
    uids[name] = createUser(db, `abuse ${name}`, hash, now - 2 * 86_400)!;
    cookies[name] = sessionInDb(db, uids[name]!, now, 86_400, 'abuse test');
  }
  let parent = 0;
  for (let depth = 0; depth <= maxReplyDepth; depth++) parent = createEntry(db, { uid: uids.chain!, content: `Tiefe ${depth}`, filepath: '', replyTo: parent, link: '' }, now - 86_400)!;
  deepLeaf = parent;
  honestRoot = createEntry(db, { uid: uids.honest!, content: 'Ein ehrliches Thema', filepath: '', replyTo: 0, link: '' }, now - 86_400)!;
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

/** The honest client posts at a person's pace: well under 6 entries a minute. */
const honestPostMs = scaled(4_000, 12_000);

/** The honest client: reads the feed and a thread, posts and votes now and then, until `until`. */
async function honestClient(until: number): Promise<{ sent: number; failed: string[]; readMs: number[] }> {
  const honest = established.honest;
  const failed: string[] = [];
  const readMs: number[] = [];
  let sent = 0;
  let nextPost = Date.now();
  for (let round = 0; Date.now() < until; round++) {
    for (const path of ['/api/entry/feed/0', `/api/entry/${honestRoot}/thread`]) {
      const started = performance.now();
      const answer = await honest.get(path);
      readMs.push(performance.now() - started);
      sent++;
      if (answer.status !== 200) failed.push(`${path}: ${answer.status}`);
    }
    if (Date.now() >= nextPost) {
      nextPost += honestPostMs;
      sent++;
      const created = await honest.post('/api/entry/create', { content: `Ehrliche Antwort ${round} (${Date.now()})`, reply_to: honestRoot });
      if (created.status !== 201) failed.push(`create: ${created.status} ${created.text}`);
      sent++;
      const voted = await honest.post(`/api/entry/${honestRoot}/vote`, { mode: 'yes' });
      if (voted.status !== 200) failed.push(`vote: ${voted.status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { sent, failed, readMs };
}

async function untilTime<T>(until: number, step: (i: number) => Promise<T>): Promise<void> {
  for (let i = 0; Date.now() < until; i++) await step(i);
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

describe('a scripted attack against a running server', () => {
  test(`for ${attackSeconds} s: every attacker is held to its limits; the honest client is answered throughout and every honest write succeeds`, { timeout: attackSeconds * 3000 + 120_000 }, async () => {
    const baseline = soak ? await honestClient(Date.now() + attackSeconds * 1000) : undefined;

    // Ten fresh accounts, each from its own address (within SPEC's limits).
    const fresh: Client[] = [];
    for (let i = 0; i < 10; i++) {
      const client = new Client(server.url, freshAddress());
      await client.signUp(`frisch ${i}`);
      fresh.push(client);
    }
    const gif = await imageFixture({ format: 'gif', width: 32, height: 32, frames: Array.from({ length: 301 }, (_, i) => `#${(i * 37 % 4096).toString(16).padStart(3, '0')}`) });

    const until = Date.now() + attackSeconds * 1000;
    const counts = { spammer: new Map<string, number>(), fresh: new Map<string, number>(), logins: new Map<string, number>(), chain: new Map<string, number>(), gif: new Map<string, number>() };
    const freshCreated = fresh.map(() => 0);
    let chainParent = deepLeaf - 1; // one level above the deepest: its replies are allowed, deeper ones not
    let chainDepthRefused = 0;

    const [honest] = await Promise.all([
      honestClient(until),
      untilTime(until, async (i) => tally(counts.spammer, await attack(() => established.spammer.post('/api/entry/create', { content: `Spam Nummer ${i}` })))),
      ...fresh.map((client, k) => untilTime(until, async (i) => {
        const answer = tally(counts.fresh, await attack(() => client.post('/api/entry/create', { content: i % 2 ? `Billig kaufen https://spam.example/${k}/${i}` : `Hallo von ${k}, Nummer ${i}` })));
        if (answer.status === 201) freshCreated[k]!++;
      })),
      Promise.all(Array.from({ length: 100 }, async () => {
        const attacker = new Client(server.url, freshAddress());
        for (let i = 0; i < 3; i++) tally(counts.logins, await attack(() => attacker.post('/api/auth/login', { user: 'abuse honest', pass: `geraten ${i}` })));
      })),
      untilTime(until, async (i) => {
        const replyTo = i % 5 === 0 ? deepLeaf : chainParent;
        const answer = tally(counts.chain, await attack(() => established.chain.post('/api/entry/create', { content: `tiefer ${i}`, reply_to: replyTo })));
        if (answer.status === 201) chainParent = answer.body.pid;
        if (answer.status === 400 && answer.body.error.code === 'entry.too_deep') chainDepthRefused++;
      }),
      untilTime(until, async () => tally(counts.gif, await attack(() => established.gif.postMultipart('/api/entry/create', { content: '' }, [{ name: 'file', filename: 'flut.gif', type: 'image/gif', data: gif }])))),
    ]);

    const summary = Object.fromEntries(Object.entries(counts).map(([who, map]) => [who, Object.fromEntries(map)]));
    const note = JSON.stringify(summary);
    assert.equal(serverErrors, 0, note);
    assert.deepEqual(honest.failed, [], 'every honest request answered as asked');
    assert.ok(honest.sent > 20, `the honest client kept going: ${honest.sent} requests`);

    assert.ok((counts.spammer.get('201') ?? 0) <= perMinute(createPerMinute), `the spammer: ${note}`);
    assert.ok((counts.spammer.get('429 rate.limited') ?? 0) > 0, note);
    for (const created of freshCreated) assert.ok(created <= perMinute(Math.round(createPerMinute / 3)), `a fresh account posted ${created}: ${note}`);
    assert.ok((counts.fresh.get('429 rate.new_account') ?? 0) > 0, `fresh accounts' links are held: ${note}`);
    assert.equal(counts.logins.get('200') ?? 0, 0, note);
    assert.ok((counts.logins.get('429 rate.limited') ?? 0) + (counts.logins.get('503 auth.busy') ?? 0) > 0, `the login burst is braked: ${note}`);
    assert.ok((counts.chain.get('201') ?? 0) <= perMinute(createPerMinute), `the chain: ${note}`);
    assert.ok(chainDepthRefused > 0, `replies below depth 200 are refused: ${note}`);
    assert.equal(counts.gif.get('201') ?? 0, 0, `no GIF of the flood is stored: ${note}`);
    assert.ok((counts.gif.get('413') ?? 0) > 0, note);
    assert.equal(db.one<{ n: number }>("SELECT count(*) AS n FROM entries WHERE filepath <> ''")!.n, 0);

    const attacked = { p50: percentile(honest.readMs, 0.5), p99: percentile(honest.readMs, 0.99) };
    if (baseline) {
      const quiet = { p50: percentile(baseline.readMs, 0.5), p99: percentile(baseline.readMs, 0.99) };
      console.log(`abuse: honest reads without the attack p50 ${quiet.p50.toFixed(1)} ms, p99 ${quiet.p99.toFixed(1)} ms; `
        + `under the attack p50 ${attacked.p50.toFixed(1)} ms, p99 ${attacked.p99.toFixed(1)} ms `
        + `(ratio p50 ${(attacked.p50 / quiet.p50).toFixed(2)}, p99 ${(attacked.p99 / quiet.p99).toFixed(2)}); counts ${note}`);
    }
  });
});
