import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { accountData, type AccountData, type ExportSource, type Pages } from './export.ts';
import { readableEntriesCsv, readableOverview } from './export-readable.ts';

/**
 * The data export (docs/API.md "GET /api/user/export"): one zip with `account.json`, the account's
 * image files, and a readable part for people (lib/account-data/export-readable.ts). The archive is
 * streamed: account.json is written from pages of rows as the client reads, and each file is opened
 * only when its turn comes, so memory does not grow with the account.
 */

let yazlLoaded: Promise<typeof import('yazl')> | undefined;
const loadYazl = () => (yazlLoaded ??= import('yazl'));

export async function accountArchive(source: ExportSource): Promise<Readable> {
  const { ZipFile } = await loadYazl();
  const zip = new ZipFile();
  const mtime = new Date(source.now * 1000);
  // Inputs still open when the output closes early (the client left) are closed with it: no file handle outlives the request.
  const inputs = new Set<Readable>();
  let closed = false;
  const track = (input: Readable) => {
    if (closed) input.destroy();
    inputs.add(input);
    input.on('error', fail);
    input.once('close', () => inputs.delete(input));
    return input;
  };
  const output = zip.outputStream as Readable;
  // yazl reports its own errors on the ZipFile and does not listen to a read stream's at all: a
  // failed input (a database fault in account.json, an unreadable file) must fail the output, or
  // the download would hang half-written.
  const fail = (err: Error) => output.destroy(err);
  zip.once('error', fail);
  output.once('close', () => {
    closed = true;
    for (const input of inputs) input.destroy();
  });

  const data = accountData(source);
  for (const [name, content] of [
    ['account.json', accountJson(data)],
    ['uebersicht.html', readableOverview(data, source)],
    ['beitraege.csv', readableEntriesCsv(data)],
  ] as const)
    zip.addReadStream(track(Readable.from(content, { objectMode: false })), name, { mtime, compress: true });
  for (const path of mediaPaths(source)) {
    zip.addReadStreamLazy(`media/${path}`, { mtime, compress: false }, (done) => {
      try {
        source.recheck();
      } catch (err) {
        return done(err, Readable.from([]));
      }
      void openMedia(join(source.mediaDir, path)).then((input) => done(null, track(input)));
    });
  }
  zip.end();
  return output;
}

/** A file's bytes; a file removed while the archive is written (its entry deleted meanwhile) comes out empty. */
async function openMedia(path: string): Promise<Readable> {
  try {
    return (await open(path)).createReadStream();
  } catch {
    return Readable.from([]);
  }
}

/**
 * account.json, piece by piece, indented as JSON.stringify(account, null, 2) writes it, so a person
 * who opens the file reads one value a line.
 */
function* accountJson(data: AccountData): Generator<Buffer> {
  let separator = '{\n';
  for (const [key, value] of Object.entries(data) as [string, unknown][]) {
    yield Buffer.from(`${separator}  ${JSON.stringify(key)}: `);
    if (typeof value === 'function') yield* jsonArray(value as Pages<unknown>);
    else yield Buffer.from(indented(value, '  '));
    separator = ',\n';
  }
  yield Buffer.from('\n}\n');
}

function* jsonArray(pages: Pages<unknown>): Generator<Buffer> {
  let separator = '[\n    ';
  for (const rows of pages()) {
    yield Buffer.from(separator + rows.map((row) => indented(row, '    ')).join(',\n    '));
    separator = ',\n    ';
  }
  yield Buffer.from(separator === '[\n    ' ? '[]' : '\n  ]');
}

function indented(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`);
}

function mediaPaths({ db, uid, user }: ExportSource): string[] {
  const images = db.all<{ filepath: string }>(
    "SELECT filepath FROM entries WHERE uid = ? AND filepath <> '' ORDER BY pid",
    uid,
  );
  return [user.avatar, ...images.map((row) => row.filepath)].filter((path) => path && !path.includes('..'));
}
