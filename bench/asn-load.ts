import { performance } from 'node:perf_hooks';
import { openAsnDb } from '../lib/stats/asn.ts';
import { loadConfig } from '../lib/config.ts';

/**
 * `make asn-measure`: loads the ASN data set (BOARD_ASN_DB, default the bundled package) the way
 * the server does and prints the load time, the longest event-loop pause during the load, the
 * memory the tables keep (after garbage collection) and the lookup speed. Needs --expose-gc.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const folder = loadConfig({ ...process.env, BOARD_DATA: '/tmp' }).asnDb;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

gc();
const before = process.memoryUsage();
let peak = 0;
let longestPause = 0;
let last = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  longestPause = Math.max(longestPause, now - last);
  last = now;
  const m = process.memoryUsage();
  peak = Math.max(peak, m.heapUsed + m.arrayBuffers);
}, 1);
const db = openAsnDb(folder);
const result = await db.ready;
clearInterval(ticker);
if (!result.loaded) throw new Error(`not loaded: ${result.error}`);
gc();
await settle();
gc();
const after = process.memoryUsage();

const probes = ['1.0.0.1', '8.8.8.8', '9.9.9.9', '2001:4860:4860::8888', '2606:4700:4700::1111', '10.1.2.3', 'fd00::1'];
const rounds = 200_000;
const started = performance.now();
for (let i = 0; i < rounds; i++) db.lookup(probes[i % probes.length]!);
const lookupUs = ((performance.now() - started) * 1000) / rounds;

console.log(`data set       ${folder}`);
console.log(
  `rows           ${result.v4Ranges} IPv4 ranges, ${result.v6Ranges} IPv6 ranges, ${result.asns} distinct ASNs`,
);
console.log(
  `load time      ${result.ms} ms (start to lookups answering; the event loop was never blocked longer than ${longestPause.toFixed(0)} ms)`,
);
console.log(`tables         ${mb(result.tableBytes)} (typed arrays and the name buffer)`);
console.log(
  `kept after gc  ${mb(after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers)} (JS heap + array buffers); rss +${mb(after.rss - before.rss)}`,
);
console.log(`peak in load   ${mb(peak - before.heapUsed - before.arrayBuffers)} (JS heap + array buffers)`);
console.log(`lookup         ${lookupUs.toFixed(2)} µs`);
for (const ip of probes) console.log(`  ${ip.padEnd(22)} ${JSON.stringify(db.lookup(ip))}`);
