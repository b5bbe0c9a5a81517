import yauzl from 'yauzl';
import type { Client } from './client.ts';

/** The data export as a test reads it (docs/API.md "GET /api/user/export"). */

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET with the client's session, the body as bytes (Client keeps text only). */
export async function download(client: Client, path = '/api/user/export'): Promise<Download> {
  const headers: Record<string, string> = { 'x-forwarded-for': client.ip! };
  if (client.cookie) headers.cookie = `session=${client.cookie}`;
  const res = await fetch(client.base + path, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Every file of a zip by name, read through yauzl (which checks each file's CRC and size). */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    files.set(entry.fileName, Buffer.concat(chunks));
  }
  return files;
}
