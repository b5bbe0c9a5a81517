import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitsOff, type TestBoard } from './board.ts';

/** Shared by the link-preview tests: fake sites on loopback and a bounded wait for the background queue. */

export type Route = (req: IncomingMessage, res: ServerResponse, site: FakeSite) => void;

export interface FakeSite {
  port: number;
  host: string;
  /** `http://host:port/path` */
  url(path?: string): string;
  /** Every request path seen, in order. */
  requests: string[];
  /** The User-Agent of the last request. */
  lastUserAgent: string;
  /** Adds or replaces a route; unknown paths answer 404. */
  route(path: string, handler: Route): void;
  close(): Promise<void>;
}

/** An HTTP server on `host` (127.0.0.1 by default), port 0, routed by path without query. */
export async function startFakeSite(routes: Record<string, Route> = {}, host = '127.0.0.1'): Promise<FakeSite> {
  const table = new Map(Object.entries(routes));
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    site.requests.push(req.url ?? '/');
    site.lastUserAgent = String(req.headers['user-agent'] ?? '');
    const handler = table.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    handler(req, res, site);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const site: FakeSite = {
    port,
    host,
    url: (path = '/') => `http://${shownHost}:${port}${path}`,
    requests: [],
    lastUserAgent: '',
    route: (path, handler) => {
      table.set(path, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return site;
}

/** A route answering a fixed body. */
export function answer(body: string | Buffer, contentType = 'text/html; charset=utf-8', status = 200): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
  };
}

/** A route redirecting to `location` (absolute or relative). */
export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}

/** A page whose head carries the given tags. */
export function page(head: string, body = '<p>Hello</p>'): string {
  return `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
}

export interface StoredPreview {
  url: string;
  kind: string;
  title: string;
  site: string;
  thumb: string;
  fetched_at: number;
  failed_at: number;
}

/** The stored preview record of a canonical URL, straight from the database. */
export function previewRow(board: TestBoard, url: string): StoredPreview | undefined {
  return board.app.services.db.one<StoredPreview>('SELECT * FROM previews WHERE url = ?', url);
}

export function queuedJobs(board: TestBoard): string[] {
  return board.app.services.db.all<{ url: string }>('SELECT url FROM preview_jobs ORDER BY url').map((r) => r.url);
}

/**
 * Board settings that let the fetcher reach fake sites on 127.0.0.1 at the given ports; the abuse
 * limits off (limitsOff): preview tests post links from brand-new accounts in a quick row.
 */
export function previewEnv(ports: number[], extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...limitsOff,
    BOARD_PREVIEW: '1',
    BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
    BOARD_PREVIEW_PORTS: ports.join(','),
    BOARD_TRUST_PROXY: '1',
    ...extra,
  };
}
