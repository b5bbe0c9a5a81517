import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { everydayWords, parts } from './german.ts';
import { dataRoot, formBody, formHeaders, root, rssEachMb, startBoard, stop, basePort } from './harness.ts';
import { attackHeading, attackSection, resultsPath, searchCases } from './search.ts';
import { seedBoard } from './seed.ts';

/**
 * `make bench-search-attack` (issue 28; not in CI): does a flood of costly searches slow the
 * board for everyone else? At BENCH_ATTACK_SIZE entries (default 1,000,000; the board is seeded
 * once into bench/data/<size>-attack and reused), the real server in its own process
 * (BOARD_TRUST_PROXY=1, BOARD_LIMITS=BENCH_LIMITS, default 1: the search limit of 30 a minute
 * per address is on, as in production; BOARD_WORKERS=BENCH_ATTACK_WORKERS, default 1). It measures, each phase BENCH_ATTACK_SECONDS long:
 * - an honest reader's GET /api/entry/feed/0, 200 a second, paced (open loop: a stall shows as
 *   latency, not as fewer requests): p99 with no other load;
 * - ordinary searches (the cases of bench/search.ts on pages 0–5 and the seeded text's words,
 *   each asked once, so none comes from the response cache), 20 a second, with no other load;
 * - the reader under 4 and under 16 connections of feed reads as fast as they are answered (no
 *   search: what any flood of the cheapest answer costs on this machine, the load generator's CPU
 *   included), then of costly searches, each connection asking the
 *   next as soon as it has an answer, a new X-Forwarded-For address every 25 requests: the
 *   issue's 20 common words shuffled (now refused: over 10 terms), 10 common words shuffled (the
 *   costliest accepted number of words), and one quoted phrase of common words near 200
 *   characters (the costliest accepted term); meanwhile an honest searcher (2 a second) counts
 *   how often it got an answer;
 * - ordinary searches again once the attack has stopped.
 * Targets (issue 28): the reader's p99 under attack within 2 × its unloaded p99; ordinary searches
 * under 50 ms p99 after the attack. The attacking connections run on a thread of their own in this
 * process, so the reader's clock is not held up by them. BENCH_BEFORE=<checkout> runs that
 * checkout's server code instead (a before/after comparison on the same board);
 * BENCH_ATTACK_CONNECTIONS=4 leaves out the 16 (the code before issue 28 takes minutes for them).
 * Writes the section "Searches under attack" of bench/search-results.md (bench/search.ts keeps it;
 * BENCH_ATTACK_APPEND=1 adds the run to the ones there).
 */
const size = Number(process.env.BENCH_ATTACK_SIZE ?? 1_000_000);
const phaseSeconds = Number(process.env.BENCH_ATTACK_SECONDS ?? 10);
const limits = process.env.BENCH_LIMITS ?? '1';
const workers = process.env.BENCH_ATTACK_WORKERS ?? '1';
const codeRoot = process.env.BENCH_BEFORE ?? root;
const readerRate = 200;
const searchRate = 20;
const honestSearchRate = 2;
const rampMs = 2_000;
/** After an attack: the search line's longest wait (lib/search/threads.ts) and a margin, so it is empty again. */
const drainMs = 3_000;

type AttackKind = 'feed reads' | 'twenty words' | 'ten words' | 'phrase';
const attackKinds = (process.env.BENCH_ATTACK_KINDS ?? 'feed reads,twenty words,ten words,phrase').split(
  ',',
) as AttackKind[];
const attackConnections = (process.env.BENCH_ATTACK_CONNECTIONS ?? '4,16').split(',').map(Number);

/** The everyday words of the seeded text that are long enough to be costly (3 or more trigrams). */
const commonWords = everydayWords.filter((word) => [...word].length >= 5);

function shuffled<T>(list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Sample {
  ms: number;
  status: number;
}

function summary(samples: Sample[]) {
  const ok = samples
    .filter((s) => s.status === 200)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const at = (q: number) => (ok.length ? ok[Math.min(ok.length - 1, Math.floor(q * ok.length))]! : NaN);
  const statuses = new Map<number, number>();
  for (const s of samples) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  return { count: samples.length, ok: ok.length, p50: at(0.5), p99: at(0.99), max: ok.at(-1) ?? NaN, statuses };
}

let ipCounter = 0;
/** A fresh address from 10.x (below the attacking thread's): only ever sent as a header. */
function nextIp(): string {
  const n = ++ipCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function timedGet(url: string, ip: string): Promise<Sample> {
  const started = performance.now();
  try {
    const res = await fetch(url, { headers: { 'x-forwarded-for': ip } });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  } catch {
    return { ms: performance.now() - started, status: 0 };
  }
}

/** Requests at a steady rate for `seconds`, each sent on time whatever the earlier ones do. */
async function paced(rate: number, seconds: number, next: () => { url: string; ip: string }): Promise<Sample[]> {
  const pending: Promise<Sample>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const { url, ip } = next();
    pending.push(timedGet(url, ip));
  }
  return Promise.all(pending);
}

let attacks = 0;
/** Starts the attacking connections (bench/search-attacker.mjs, a thread of their own); the returned function stops them and gives their samples. */
function startAttack(url: string, connections: number, kind: AttackKind): () => Promise<Sample[]> {
  attacks++;
  const firstAddress = (1 + attacks) << 18; // each attack 262,144 addresses of its own (from 10.8.0.0), never the main thread's
  const worker = new Worker(new URL('./search-attacker.mjs', import.meta.url), {
    workerData: { url, connections, kind, words: commonWords, firstAddress },
  });
  const done = new Promise<Sample[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  done.catch(() => {}); // a failed thread is reported when the attack is stopped
  return async () => {
    worker.postMessage('stop');
    const samples = await done;
    await worker.terminate();
    return samples;
  };
}

/**
 * Ordinary searches, each once in a random order (none is in the response cache if a write came
 * before): bench/search.ts's cases on pages 0–5, and every word and compound part of the seeded
 * text (bench/german.ts) on pages 0 and 1.
 */
function ordinarySearches(url: string): () => { url: string; ip: string } {
  const pages = (q: string, count: number) =>
    Array.from(
      { length: count },
      (_, page) => `/api/search/${page}?q=${encodeURIComponent(q).replace('%26user%3D', '&user=')}`,
    );
  const targets = shuffled([
    ...searchCases.flatMap(([, q]) => pages(q, 6)),
    ...[...new Set([...everydayWords, ...parts].map((word) => word.toLowerCase()))].flatMap((word) => pages(word, 2)),
  ]);
  let i = 0;
  return () => ({ url: url + targets[i++ % targets.length], ip: nextIp() });
}

/** One create, so every cached search page is out of date (the response cache drops them all at a write). */
async function write(url: string, n: number): Promise<void> {
  const res = await fetch(`${url}/api/entry/create`, {
    method: 'POST',
    headers: { ...formHeaders(1 + n), 'x-forwarded-for': nextIp() },
    body: formBody({ content: `Nach dem Angriff ${n} ${Date.now()}` }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '–' : ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const statusList = (statuses: Map<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${n} × ${s || 'failed'}`)
    .join(', ');

async function main(): Promise<void> {
  const dir = join(dataRoot, `${size}-attack`);
  const dbPath = join(dir, 'board.db');
  if (!existsSync(dbPath)) {
    mkdirSync(dir, { recursive: true });
    const started = performance.now();
    await seedBoard(dbPath, { entries: size });
    console.error(
      `seeded ${size.toLocaleString('en')} entries in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } else {
    const db = new Database(dbPath, { readonly: true });
    const entries = (db.prepare('SELECT max(pid) AS n FROM entries').get() as { n: number }).n;
    db.close();
    if (entries < size)
      throw new Error(`${dbPath} holds ${entries} entries, not ${size}: remove the folder to seed it again`);
  }
  const loadBefore = loadavg();
  const board = await startBoard(dir, basePort + 20, { BOARD_LIMITS: limits, BOARD_WORKERS: workers }, codeRoot);
  process.once('exit', () => board.proc.kill()); // a crash here must not leave the server running
  const lines: string[] = [];
  const log = (line: string) => {
    console.error(line);
    lines.push(line);
  };
  let writes = 0;
  try {
    const feed = () => ({ url: `${board.url}/api/entry/feed/0`, ip: nextIp() });
    await paced(readerRate, 3, feed); // warm: JIT, page cache
    await paced(searchRate, 3, ordinarySearches(board.url));

    const rows: string[] = [];
    let worstRatio = 0;
    const unloaded = summary(await paced(readerRate, phaseSeconds, feed));
    rows.push(`| no other load | ${fmt(unloaded.p50)} | ${fmt(unloaded.p99)} | ${fmt(unloaded.max)} | | | | |`);
    await write(board.url, writes++);
    const searchesBefore = summary(await paced(searchRate, phaseSeconds, ordinarySearches(board.url)));

    for (const kind of attackKinds) {
      for (const connections of attackConnections) {
        await write(board.url, writes++); // the honest searcher's pages are not cached from before
        const stopAttack = startAttack(board.url, connections, kind);
        await sleep(rampMs);
        const honest = ordinarySearches(board.url);
        const [reader, searcher] = await Promise.all([
          paced(readerRate, phaseSeconds, feed),
          paced(honestSearchRate, phaseSeconds, honest),
        ]);
        const attack = summary(await stopAttack());
        const read = summary(reader);
        const searched = summary(searcher);
        if (kind !== 'feed reads') worstRatio = Math.max(worstRatio, read.p99 / unloaded.p99); // the yardstick is no search
        rows.push(
          `| ${connections} connections: ${kind} | ${fmt(read.p50)} | ${fmt(read.p99)} | ${fmt(read.max)} | ${(read.p99 / unloaded.p99).toFixed(2)} | ` +
            `${Math.round(attack.count / (phaseSeconds + rampMs / 1000))}/s: ${statusList(attack.statuses)}; p50 ${fmt(attack.p50)} ms of the 200s | ` +
            `${searched.ok} of ${searched.count} | ${fmt(searched.p99)} |`,
        );
        log(rows.at(-1)!);
        await sleep(drainMs);
      }
    }
    await write(board.url, writes++);
    const searchesAfter = summary(await paced(searchRate, phaseSeconds, ordinarySearches(board.url)));
    const rss = rssEachMb(board.proc.pid!);
    const loadAfter = loadavg();

    const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
    const run = [
      `### ${new Date().toISOString().slice(0, 10)}: ${codeRoot === root ? 'this checkout' : `the code of ${codeRoot}`}, ${workers === '1' ? 'one process' : `${workers} workers`}`,
      '',
      `bench/search-attack.ts on ${machine}; ${size.toLocaleString('en')} entries; the server with BOARD_LIMITS=${limits}, BOARD_WORKERS=${workers}` +
        `; ${phaseSeconds} s a phase; load average (1, 5, 15 min) ${loadBefore.map((l) => l.toFixed(2)).join(', ')} ` +
        `before and ${loadAfter.map((l) => l.toFixed(2)).join(', ')} after (other work on the machine: the figures are only as quiet as it was).`,
      '',
      `An honest reader's GET /api/entry/feed/0 (${readerRate} a second, paced), under costly searches from connections that each ask the next as soon as they have an answer ` +
        `(a new address every 25); an honest searcher (${honestSearchRate} a second, ordinary searches) alongside:`,
      '',
      '| load | feed p50 ms | feed p99 ms | feed max ms | p99 × unloaded | attacking searches: answers | honest searches answered 200 | their p99 ms |',
      '|---|---:|---:|---:|---:|---|---:|---:|',
      ...rows,
      '',
      `Ordinary searches (bench/search.ts's cases on pages 0–5, the seeded text's words and compound parts on pages 0–1; each once, none from the response cache; ${searchRate} a second):`,
      '',
      '| when | p50 ms | p99 ms | max ms | answers |',
      '|---|---:|---:|---:|---|',
      `| before the attacks | ${fmt(searchesBefore.p50)} | ${fmt(searchesBefore.p99)} | ${fmt(searchesBefore.max)} | ${statusList(searchesBefore.statuses)} |`,
      `| after the attacks | ${fmt(searchesAfter.p50)} | ${fmt(searchesAfter.p99)} | ${fmt(searchesAfter.max)} | ${statusList(searchesAfter.statuses)} |`,
      '',
      `- targets (issue 28): feed p99 under searches within 2 × unloaded (${fmt(2 * unloaded.p99)} ms): ${worstRatio <= 2 ? 'met' : 'not met'} ` +
        `(at most ${worstRatio.toFixed(2)} ×); ordinary searches after the attacks under 50 ms p99: ${searchesAfter.p99 < 50 ? 'met' : 'not met'}`,
      `- the server's resident memory at the end: ${rss.map((mb) => `${mb.toFixed(0)} MB`).join(' + ')}`,
      '',
    ].join('\n');
    console.log(run);
    writeAttackRun(run);
  } finally {
    await stop(board.proc);
  }
}

/**
 * Puts the run in bench/search-results.md as the attack section, in place of the runs before it, or
 * with BENCH_ATTACK_APPEND=1 after them (a before/after pair, one process and two workers).
 * bench/search.ts writes the rest of the file and keeps this section.
 */
function writeAttackRun(run: string): void {
  const existing = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '# Search benchmark\n';
  const section = attackSection(existing);
  const rest = section ? existing.slice(0, existing.length - section.length) : existing;
  const runs = process.env.BENCH_ATTACK_APPEND === '1' && section ? `${section.trimEnd()}\n\n` : `${attackHeading}\n\n`;
  writeFileSync(resultsPath, `${rest.trimEnd()}\n\n${runs}${run}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
