import { createServer } from 'node:http';

/**
 * The true ceiling for a cached page on this machine: a bare node:http server answering every
 * request with THE SAME BYTES the board answers, from memory. It fetches the page from the running
 * board once (status line aside: its headers except the ones Node writes itself, and its body),
 * then serves that Buffer; nothing is built per request.
 * Usage: node bench/same-bytes.ts <page URL on the board> <port>
 */
const [pageUrl, port] = process.argv.slice(2);
const answer = await fetch(pageUrl!);
const body = Buffer.from(await answer.arrayBuffer());
const nodeWrites = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const headers: string[] = [];
for (const [name, value] of answer.headers) if (!nodeWrites.has(name)) headers.push(name, value);

createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => console.log(`same-bytes ready: ${body.length} bytes, ${headers.length / 2} headers`));
