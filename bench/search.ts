import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openDb } from '../lib/db/db.ts';
import { searchExpression } from '../lib/search/query.ts';
import { searchPids, type MatchRunner } from '../lib/search/search.ts';
import {
  basePort,
  boardLimits,
  connections,
  dataRoot,
  formBody,
  formHeaders,
  load,
  root,
  row,
  seconds,
  startBoard,
  stop,
  warmUp,
  type Row,
} from './harness.ts';
import { rareWord, shortWord } from './german.ts';
import { benchUsername, seedBoard } from './seed.ts';
import { readLiveEntriesWithLatest } from '../lib/entries/reads.ts';

/**
 * `make bench-search` (also part of `make bench`): search, the Atom feeds and the share pages at
 * BENCH_SEARCH_SIZE entries (default 1,000,000, German-looking text from bench/german.ts):
 * - each search case under 50 connections, as a ratio to feed page 0 in the same run (both are
 *   served from the response cache once asked; the cost of a search the cache does not hold is
 *   measured apart, in the process, as the time of one search);
 * - the index's size on disk;
 * - creates per second with the index, against the same server and data with a plain table in
 *   place of the FTS5 index (the run without, in this run) and against the last run before the
 *   index (bench/results.md: 3,855/s);
 * - /e/{pid} (with its share tags) against the plain page shell, and the Atom feeds against the feed.
 * Writes bench/search-results.md.
 */
const size = Number(process.env.BENCH_SEARCH_SIZE ?? 1_000_000);
/** bench/results.md, the last run before the search index: create entry (text, logged in). */
const createsBeforeIndex = 3855;

/** The file this writes; bench/search-attack.ts writes its section at the end, which a run here keeps. */
export const resultsPath = join(root, 'bench', 'search-results.md');
export const attackHeading = '## Searches under attack';

/** bench/search-attack.ts's section of the results (from its heading to the end), or ''. */
export function attackSection(text: string): string {
  const at = text.indexOf(`\n${attackHeading}`);
  return at < 0 ? '' : text.slice(at + 1);
}

/** The search cases (name, q): also timed per size by `make bench-10m` (bench/ten-million.ts). */
export const searchCases: [string, string][] = [
  ['common word ("nicht")', 'nicht'],
  [`rare word ("${rareWord}")`, rareWord],
  ['compound part ("kraftwerk")', 'kraftwerk'],
  [`two-letter word ("${shortWord}")`, shortWord],
  ['two words ("balkon kraftwerk")', 'balkon kraftwerk'],
  ['common word, one author', `nicht&user=${benchUsername(7)}`],
];

export interface Timing {
  name: string;
  p50: number;
  p99: number;
  results: number;
}

/** One search without the cache, in this process: the cost of a query nobody asked in a while (the match on this thread). */
export async function timeUncached(dbPath: string): Promise<Timing[]> {
  const db = openDb(dbPath);
  const runMatch: MatchRunner = async (sql, params) => db.all(sql, ...params);
  const author = db.value('SELECT uid FROM users WHERE username = ?', benchUsername(7));
  const timings: Timing[] = [];
  for (const [name, q] of searchCases) {
    const [words, user] = q.split('&user=');
    const expression = searchExpression(words!);
    const uid = user ? author : undefined;
    for (const page of [0, 5]) {
      const times: number[] = [];
      let results = 0;
      for (let i = 0; i < 300; i++) {
        const started = performance.now();
        results = readLiveEntriesWithLatest(db, await searchPids(expression, uid, page, runMatch)).length;
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      timings.push({ name: `${name}, page ${page}`, p50: times[150]!, p99: times[297]!, results });
    }
  }
  void db.close();
  return timings;
}

/** The search index's pages (dbstat) and the whole database, in bytes. */
export function indexBytes(dbPath: string): { index: number; total: number } {
  const db = new Database(dbPath, { readonly: true });
  const index = (db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'search%'").get() as { b: number }).b;
  const total = (
    db.prepare('SELECT page_count * page_size AS b FROM pragma_page_count(), pragma_page_size()').get() as { b: number }
  ).b;
  db.close();
  return { index, total };
}

/** A copy of the board whose `search` is a plain table: the same server code, without the FTS5 work. */
function withoutIndex(dir: string): string {
  const copy = join(dataRoot, `${size}-no-index`);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
  copyFileSync(join(dir, 'board.db'), join(copy, 'board.db'));
  const db = new Database(join(copy, 'board.db'));
  db.exec('DROP TABLE search; CREATE TABLE search (text, short, author); VACUUM');
  db.close();
  return copy;
}

async function createRate(dir: string, port: number, label: string): Promise<Row> {
  const board = await startBoard(dir, port);
  try {
    const users = 1000;
    const result = await load(board.url, {
      path: '/api/entry/create',
      method: 'POST',
      setup: (c, i) =>
        c.setHeadersAndBody(
          formHeaders((i % users) + 1),
          formBody({ content: `Bench-Beitrag über Balkonkraftwerke, Verbindung ${i}`, reply_to: String(1000 + i) }),
        ),
    });
    return row(label, size, result);
  } finally {
    await stop(board.proc);
  }
}

async function main(): Promise<void> {
  const dir = join(dataRoot, `${size}-search`);
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, 'board.db');
  let started = performance.now();
  await seedBoard(dbPath, { entries: size });
  console.error(`seeded ${size} entries with the index in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const bytes = indexBytes(dbPath);
  const uncached = await timeUncached(dbPath);
  const noIndex = withoutIndex(dir);

  const rows: Row[] = [];
  const board = await startBoard(dir, basePort + 10);
  const paths = searchCases.map(([, q]) => `/api/search/0?q=${q.replace(' ', '%20')}`);
  await warmUp(board.url, ['/api/entry/feed/0', ...paths, '/e/12345', '/', '/feed.atom', '/e/12345/feed.atom']);
  const feed = await load(board.url, { path: '/api/entry/feed/0' });
  rows.push(row('feed page 0', size, feed));
  for (const [i, [name]] of searchCases.entries()) {
    const result = await load(board.url, { path: paths[i]! });
    rows.push({ ...row(`search: ${name}`, size, result), ratio: result.requests.average / feed.requests.average });
  }
  const shell = await load(board.url, { path: '/' });
  rows.push(row('page / (the plain shell)', size, shell));
  const share = await load(board.url, { path: '/e/12345' });
  rows.push({
    ...row('page /e/12345 (with share tags)', size, share),
    ratio: share.requests.average / shell.requests.average,
  });
  for (const path of ['/feed.atom', '/e/12345/feed.atom', `/u/${encodeURIComponent(benchUsername(7))}/feed.atom`]) {
    const atom = await load(board.url, { path });
    rows.push({ ...row(`Atom ${path}`, size, atom), ratio: atom.requests.average / feed.requests.average });
  }
  await stop(board.proc);

  // Creates alternate between the two servers, twice, so a noisy minute hits both alike.
  started = performance.now();
  const creates: Row[] = [];
  for (let round = 0; round < 2; round++) {
    creates.push(await createRate(dir, basePort + 11, 'create entry, with the FTS5 index'));
    creates.push(await createRate(noIndex, basePort + 12, 'create entry, a plain table in its place'));
  }
  const average = (label: string) =>
    creates.filter((r) => r.name.startsWith(label)).reduce((sum, r) => sum + r.rps, 0) / 2;
  const withIdx = average('create entry, with');
  const without = average('create entry, a plain');
  rows.push(...creates);

  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const report = [
    '# Search benchmark',
    '',
    `${new Date().toISOString().slice(0, 10)} on ${machine}; autocannon, ${connections} connections, ${seconds} s per case; ` +
      `the server with BOARD_LIMITS=${boardLimits}; ${size.toLocaleString('en')} entries of German-looking text (bench/german.ts).`,
    '',
    '| case | entries | req/s | p50 ms | p99 ms | × feed (pages: × shell) | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.size.toLocaleString('en')} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50} | ${r.p99} | ${r.ratio === undefined ? '' : r.ratio.toFixed(2)} | ${r.errors} |`,
    ),
    '',
    'One search without the response cache (in the process, 300 times each; results on the page):',
    '',
    '| search | p50 ms | p99 ms | results |',
    '|---|---:|---:|---:|',
    ...uncached.map((t) => `| ${t.name} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} | ${t.results} |`),
    '',
    `- index on disk: ${(bytes.index / 2 ** 20).toFixed(0)} MiB of a ${(bytes.total / 2 ** 20).toFixed(0)} MiB database`,
    `- creates with the index: ${Math.round(withIdx).toLocaleString('en')}/s; ${(withIdx / without).toFixed(2)} × the same server with a plain table ` +
      `in its place (${Math.round(without).toLocaleString('en')}/s, this run), ${(withIdx / createsBeforeIndex).toFixed(2)} × the last run before the index (${createsBeforeIndex.toLocaleString('en')}/s)`,
    `- creates measured in ${((performance.now() - started) / 1000).toFixed(0)} s, alternating`,
    '',
  ].join('\n');
  console.log(report);
  const attack = existsSync(resultsPath) ? attackSection(readFileSync(resultsPath, 'utf8')) : '';
  writeFileSync(resultsPath, attack ? `${report}\n${attack}` : report);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
