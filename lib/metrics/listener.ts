import { createServer, type Server, type ServerResponse } from 'node:http';
import { isLoopbackAddress } from '../ip/ranges.ts';
import type { Log } from '../log.ts';

/**
 * The metrics listener: a second node:http server, apart from the board's, that answers
 * `GET /metrics` in Prometheus' text format and nothing else. It never sees the board's routes,
 * sessions or limits, and it is bound to loopback only (listenOnLoopback).
 */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export function createMetricsServer(registry: MetricsSource, log: Log): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return plain(res, 404, 'not found: the metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return plain(res, 405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        // A failing database read (open reports, the preview queue) fails the scrape: Prometheus shows it as down.
        log(`metrics: ${err.message}`);
        plain(res, 500, 'the metrics could not be read; see the board log\n');
      },
    );
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

/**
 * Listens on a loopback address or refuses: the second lock behind BOARD_METRICS_HOST's check
 * (lib/config.ts), so no code path can put the metrics on a public address. Resolves with the port.
 */
export function listenOnLoopback(server: Server, port: number, host: string): Promise<number> {
  if (!isLoopbackAddress(host))
    return Promise.reject(new Error(`metrics: refusing to listen on ${host}: loopback addresses only`));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(text);
}
