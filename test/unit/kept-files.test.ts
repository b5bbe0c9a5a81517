import assert from 'node:assert/strict';
import { writeFileSync, utimesSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sendKeptFile } from '../../lib/http/static.ts';
import { emptyFolder } from '../helpers/folders.ts';

// The front end's files kept in memory (lib/http/static.ts sendKeptFile): what a browser gets must
// be the file on disk now, never the copy of an earlier read.
const folder = emptyFolder();
const file = join(folder, 'app.js');
let server: Server;
let origin: string;

before(async () => {
  server = createServer((req, res) => {
    void sendKeptFile(res, join(folder, req.url!.slice(1)), {
      head: req.method === 'HEAD',
      request: req.headers,
    }).then((sent) => {
      if (!sent) res.writeHead(404).end('fehlt');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a kept file changed on disk is sent as it is now, with a new ETag', async () => {
  writeFileSync(file, 'export const a = 1;\n');
  const first = await fetch(`${origin}/app.js`);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(await first.text(), 'export const a = 1;\n');
  const etag = first.headers.get('etag')!;
  assert.equal((await fetch(`${origin}/app.js`, { headers: { 'if-none-match': etag } })).status, 304);

  // Same size, a later mtime: a deploy that changed one character.
  writeFileSync(file, 'export const a = 2;\n');
  utimesSync(file, new Date(), new Date(Date.now() + 5_000));
  const changed = await fetch(`${origin}/app.js`, { headers: { 'if-none-match': etag } });
  assert.equal(changed.status, 200);
  assert.equal(await changed.text(), 'export const a = 2;\n');
  assert.notEqual(changed.headers.get('etag'), etag);

  writeFileSync(file, 'export const a = 3; // länger\n');
  const longer = await fetch(`${origin}/app.js`);
  assert.equal(await longer.text(), 'export const a = 3; // länger\n');
  assert.equal(longer.headers.get('content-length'), String(Buffer.byteLength('export const a = 3; // länger\n')));
});

test('HEAD of a kept file sends its headers and no body; a file gone is gone', async () => {
  writeFileSync(file, 'export const b = 1;\n');
  assert.equal((await fetch(`${origin}/app.js`)).status, 200);
  const head = await fetch(`${origin}/app.js`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), '20');
  assert.equal(await head.text(), '');
  rmSync(file);
  assert.equal((await fetch(`${origin}/app.js`)).status, 404);
});
