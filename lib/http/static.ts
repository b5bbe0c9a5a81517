import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Maps a URL sub-path (still percent-encoded) to a file inside root, or undefined.
 * Refuses `..`, encoded slashes or backslashes, NUL and hidden files, so a request never leaves root.
 */
export function safeFilePath(root: string, encodedSubPath: string): string | undefined {
  if (/%2f|%5c|%00/i.test(encodedSubPath)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encodedSubPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.length === 0 || segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return undefined;
  const full = join(root, ...segments);
  return full.startsWith(root + sep) ? full : undefined;
}

/** Streams a regular file with its type; false when there is no such file. */
export async function sendFile(res: ServerResponse, path: string, options: { status?: number; cacheControl?: string; head?: boolean } = {}): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return false;
  const type = contentTypes[extname(path).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(options.status ?? 200, {
    'Content-Type': type,
    'Content-Length': info.size,
    'Cache-Control': options.cacheControl ?? 'no-cache',
    'Last-Modified': info.mtime.toUTCString(),
  });
  if (options.head) {
    res.end();
    return true;
  }
  await new Promise<void>((resolve) => {
    const stream = createReadStream(path);
    stream.on('error', () => { res.destroy(); resolve(); });
    stream.on('end', resolve);
    stream.pipe(res);
  });
  return true;
}
