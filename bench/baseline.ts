import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * The ceiling for a JSON endpoint on this machine: a bare node:http server answering every
 * request with JSON.stringify of a fixed 20-entry array shaped like feed page 0.
 * Usage: node bench/baseline.ts <sample.json> <port>
 */
const [samplePath, port] = process.argv.slice(2);
const sample: unknown = JSON.parse(readFileSync(samplePath!, 'utf8'));

createServer((_req, res) => {
  const body = JSON.stringify(sample);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(port), '127.0.0.1', () => console.log('baseline ready'));
