// The attacking connections of bench/search-attack.ts, on a thread of their own so the honest
// reader's clock in the main thread is not held up by them (a .mjs file: workers load no tsx).
// Each connection asks its next costly search as soon as it has an answer, a new X-Forwarded-For
// address every 25 requests, until told to stop; then the samples go back.
import { parentPort, workerData } from 'node:worker_threads';

const { url, connections, kind, words, firstAddress } = workerData;

function shuffled(list) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Common words in a new order every time, so the response cache never holds the search; at most 200 characters. */
function attackQuery() {
  if (kind === 'phrase') {
    let phrase = '';
    for (const word of shuffled(words).concat(shuffled(words)))
      if (phrase.length + word.length + 1 <= 196) phrase += (phrase ? ' ' : '') + word;
    return `"${phrase}"`;
  }
  const picked = shuffled(words).slice(0, kind === 'twenty words' ? 20 : 10);
  while (picked.join(' ').length > 200) picked.pop();
  return picked.join(' ');
}

let addresses = 0;
/** Addresses from 10.x counted up from firstAddress: each attack its own, apart from the main thread's. */
const nextIp = () => {
  const n = firstAddress + ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

let stopping = false;
parentPort.once('message', () => (stopping = true));
const samples = [];
await Promise.all(
  Array.from({ length: connections }, async () => {
    let ip = '';
    for (let n = 0; !stopping; n++) {
      if (n % 25 === 0) ip = nextIp();
      const started = performance.now();
      let status = 0;
      try {
        const target =
          kind === 'feed reads' ? '/api/entry/feed/0' : `/api/search/0?q=${encodeURIComponent(attackQuery())}`;
        const res = await fetch(url + target, { headers: { 'x-forwarded-for': ip } });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        // counted as status 0: failed
      }
      samples.push({ ms: performance.now() - started, status });
    }
  }),
);
parentPort.postMessage(samples);
