import { constants, type Stats } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { isNotModified } from './conditional.ts';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
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

export interface SendFileOptions {
  status?: number;
  cacheControl?: string;
  head?: boolean;
  type?: string;
  headers?: Record<string, string>;
  accept?: { bytes: number; test(head: Buffer): boolean };
  noFollow?: boolean;
  /**
   * The request's headers: a copy its validators name as current (the ETag holds the file's size and
   * mtime) is answered 304 without a body. Why: `no-cache` makes a browser ask on every page load,
   * and a 304 spares it the whole front end's bytes each time.
   */
  request?: IncomingHttpHeaders;
}

/**
 * Whether opening failed for want of a file to serve (ENOENT, ENOTDIR, ENAMETOOLONG, or ELOOP for a
 * refused link); any other failure (EACCES, EIO, EMFILE) is a server fault.
 */
export function isMissingFile(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' || code === 'ELOOP';
}

/**
 * Writes a file's validators and its head, or a 304 when the request names them as current; true
 * when that was the whole answer. The ETag holds the file's size and mtime.
 */
function answeredFromHeaders(
  res: ServerResponse,
  path: string,
  info: Pick<Stats, 'size' | 'mtimeMs' | 'mtime'>,
  options: SendFileOptions,
): boolean {
  const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  const validators = {
    ETag: etag,
    'Cache-Control': options.cacheControl ?? 'no-cache',
    'Last-Modified': info.mtime.toUTCString(),
  };
  const asked = (options.status ?? 200) === 200 ? options.request : undefined;
  if (asked && isNotModified(asked, etag, Math.floor(info.mtimeMs / 1000))) {
    res.writeHead(304, { ...options.headers, ...validators });
    res.end();
    return true;
  }
  res.writeHead(options.status ?? 200, {
    ...options.headers,
    'Content-Type': options.type ?? contentTypes[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
    ...validators,
  });
  return false;
}

interface KeptFile {
  info: Pick<Stats, 'size' | 'mtimeMs' | 'mtime'>;
  body: Buffer;
}

/** The front end's files in memory, by path: a few hundred KiB that every page load asks for; none bigger than the limit. */
const keptFiles = new Map<string, KeptFile>();
const maxKeptFileBytes = 1024 * 1024;

/**
 * sendFile for the front end's own files, kept in memory and read again when size or mtime changed.
 * Why: a page load asks for dozens of modules, and one stat costs less than an open, stat and close.
 */
export async function sendKeptFile(res: ServerResponse, path: string, options: SendFileOptions = {}): Promise<boolean> {
  const info = await stat(path).catch((err: unknown) => {
    if (isMissingFile(err)) return undefined;
    throw err;
  });
  if (!info?.isFile()) {
    keptFiles.delete(path);
    return false;
  }
  let kept = keptFiles.get(path);
  if (!kept || kept.info.size !== info.size || kept.info.mtimeMs !== info.mtimeMs) {
    if (info.size > maxKeptFileBytes) return sendFile(res, path, options);
    const body = await readFile(path);
    // Changed while read: sent from disk this time, kept on a later ask.
    if (body.length !== info.size) return sendFile(res, path, options);
    kept = { info, body };
    keptFiles.set(path, kept);
  }
  if (answeredFromHeaders(res, path, kept.info, options)) return true;
  res.end(options.head ? undefined : kept.body);
  return true;
}

export async function sendFile(res: ServerResponse, path: string, options: SendFileOptions = {}): Promise<boolean> {
  const file = await open(path, options.noFollow ? constants.O_RDONLY | constants.O_NOFOLLOW : 'r').catch(
    (err: unknown) => {
      if (isMissingFile(err)) return undefined;
      throw err;
    },
  );
  if (!file) return false;
  try {
    const info = await file.stat();
    if (!info.isFile()) return false;
    if (options.accept) {
      const head = Buffer.alloc(options.accept.bytes);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      if (!options.accept.test(head.subarray(0, bytesRead))) return false;
    }
    if (answeredFromHeaders(res, path, info, options)) return true;
    if (options.head || info.size === 0) {
      res.end();
      return true;
    }
    // pipeline: a client that goes away ends the read too (and the file is closed below).
    await pipeline(file.createReadStream({ start: 0, end: Math.max(0, info.size - 1), autoClose: false }), res).catch(
      () => res.destroy(),
    );
    return true;
  } finally {
    await file.close();
  }
}
