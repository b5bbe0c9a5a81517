import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { makeFolders, syncFolder } from '../host/folders.ts';

export const torBulkExitListUrl = 'https://check.torproject.org/torbulkexitlist';

/** Why these limits: a cron job must never hang or fill the disk (the real list is a few tens of KiB). */
const fetchTimeoutMs = 30_000;
const maxListBytes = 5 * 1024 * 1024;

/**
 * Downloads the Tor exit list and atomically replaces `config.torExitsFile` with it.
 * Refuses (throws, leaving the old file alone) anything but a 200 answer whose every
 * non-comment line is an IP address, and an empty list. Returns the number of addresses written.
 */
export async function torRefresh(config: Config, url: string = torBulkExitListUrl): Promise<number> {
  const source = checkedUrl(url);
  const text = await download(source);
  const addresses = parseAddresses(text);
  const header = `# Tor exit addresses from ${source.href}, fetched ${new Date().toISOString()}\n`;
  await writeAtomically(config.torExitsFile, header + addresses.map((a) => `${a}\n`).join(''));
  return addresses.length;
}

function checkedUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`"${url}" is not an http or https URL`);
  return parsed;
}

async function download(url: URL): Promise<string> {
  let res: Response;
  const signal = AbortSignal.timeout(fetchTimeoutMs);
  try {
    res = await fetch(url, { signal, headers: { 'user-agent': 'board-admin tor-refresh' } });
  } catch (err) {
    throw new Error(`cannot fetch ${url.href}: ${fetchFailure(err)}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`${url.href} answered ${res.status}, expected 200`);
  }
  if (Number(res.headers.get('content-length') ?? 0) > maxListBytes) {
    await res.body?.cancel();
    throw new Error(`${url.href} sent more than ${maxListBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? new ReadableStream<Uint8Array>()) {
      size += chunk.byteLength;
      if (size > maxListBytes) break; // leaving the loop cancels the download
      chunks.push(chunk);
    }
  } catch (err) {
    throw new Error(`reading ${url.href}: ${fetchFailure(err)}`);
  }
  if (size > maxListBytes) throw new Error(`${url.href} sent more than ${maxListBytes} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

function fetchFailure(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError')
    return `no complete answer within ${fetchTimeoutMs / 1000} s`;
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : (err as Error).message;
}

function parseAddresses(text: string): string[] {
  const addresses = new Set<string>();
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!isIP(line)) throw new Error(`line ${i + 1} is not an IP address: ${JSON.stringify(line.slice(0, 60))}`);
    addresses.add(line);
  }
  if (addresses.size === 0) throw new Error('the list is empty');
  return [...addresses];
}

/** Temporary file in the same folder, fsync, rename over the target: readers see the old or the new list, never half of one. */
async function writeAtomically(target: string, content: string): Promise<void> {
  const folder = dirname(target);
  makeFolders(folder);
  const temporary = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const file = await open(temporary, 'wx', 0o644);
    try {
      await file.writeFile(content, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  syncFolder(folder);
}
