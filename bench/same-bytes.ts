import cluster from 'node:cluster';
import { createServer } from 'node:http';

/**
 * The true ceiling for a cached page on this machine: a bare node:http server answering every
 * request with THE SAME BYTES the board answers, from memory. It fetches the page from the running
 * board once (status line aside: its headers except the ones Node writes itself, and its body),
 * then serves that Buffer; nothing is built per request. With `processes` above 1 it runs that
 * many such servers on one port, forked by node:cluster and each listening with `reusePort`, as
 * BOARD_WORKERS does: the ceiling for two workers on this machine (bench/run.ts compares it with
 * one process like the board's workers).
 * Usage: node bench/same-bytes.ts <page URL on the board> <port> [processes]
 */
const [pageUrl, port, processes = '1'] = process.argv.slice(2);
const count = Number(processes);

if (count > 1 && cluster.isPrimary) {
  let ready = 0;
  for (let i = 0; i < count; i++) {
    cluster.fork().on('message', () => {
      if (++ready === count) console.log(`same-bytes ready: ${count} processes`);
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const answer = await fetch(pageUrl!);
  const body = Buffer.from(await answer.arrayBuffer());
  const nodeWrites = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
  const headers: string[] = [];
  for (const [name, value] of answer.headers) if (!nodeWrites.has(name)) headers.push(name, value);

  createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  }).listen({ port: Number(port), host: '127.0.0.1', reusePort: cluster.isWorker }, () => {
    if (cluster.isWorker) process.send!('ready');
    else console.log(`same-bytes ready: ${body.length} bytes, ${headers.length / 2} headers`);
  });
}
