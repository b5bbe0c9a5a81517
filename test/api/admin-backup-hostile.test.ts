import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { extract, pack } from 'tar-stream';
import { restoreBackup } from '../../lib/admin/restore.ts';
import { verifyBackup } from '../../lib/admin/verify.ts';
import { loadConfig } from '../../lib/config.ts';
import {
  boardMediaPath,
  emptyFolder,
  imageFixture,
  limitsOff,
  runAdmin,
  runAdminInProcess,
  runAdminWith,
  useBoard,
} from '../helpers.ts';

/**
 * Issue 28, finding 4: a real `backup --with-media` archive with a script page and a script SVG
 * added passed verify and restore, and the board then served them as live pages. An archive may
 * now hold only what a backup writes: board.db first, then images named as the board names
 * them, each named by a row of that database, once, in the format its name says. The backups and
 * the restore whose file modes are checked run as the real program; the other restores and
 * verifies run bin/board-admin's runCli in this process (the same lines and exit codes, without a
 * process start each).
 */

interface TarEntry {
  name: string;
  data: Buffer;
}

/** Every entry of a tar file, read with tar-stream (the project's tar library). */
async function readTar(file: string): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const parser = extract();
  createReadStream(file).pipe(parser as unknown as NodeJS.WritableStream);
  for await (const entry of parser) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.push({ name: entry.header.name, data: Buffer.concat(chunks) });
  }
  return entries;
}

/** A new tar file holding these entries, written with tar-stream. */
async function writeTar(entries: readonly TarEntry[]): Promise<string> {
  const file = join(emptyFolder(), 'board.tar');
  const archive = pack();
  const out = archive.pipe(createWriteStream(file) as unknown as NodeJS.WritableStream);
  for (const entry of entries) archive.entry({ name: entry.name, mode: 0o600 }, entry.data);
  archive.finalize();
  await new Promise((resolve) => (out as unknown as NodeJS.EventEmitter).on('close', resolve));
  return file;
}

/** Rewrites the size field of one entry's header (and its checksum): a header that claims more than follows. */
function claimSize(file: string, name: string, size: number): void {
  const bytes = readFileSync(file);
  for (let at = 0; at + 512 <= bytes.length; ) {
    const header = bytes.subarray(at, at + 512);
    const own = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const length = parseInt(header.subarray(124, 136).toString('latin1'), 8) || 0;
    if (own === name) {
      header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
      header.fill(0x20, 148, 156);
      const sum = header.reduce((total, byte) => total + byte, 0);
      header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
      return writeFileSync(file, bytes);
    }
    at += 512 + Math.ceil(length / 512) * 512;
  }
  throw new Error(`${name} is not in ${file}`);
}

/** A data folder as files (path, mode, content hash) and rows: what a refused restore must leave exactly as it was. */
function dataFolderState(data: string) {
  const files = (readdirSync(data, { recursive: true }) as string[]).sort().map((path) => {
    const info = lstatSync(join(data, path));
    const content = info.isFile()
      ? createHash('sha256')
          .update(readFileSync(join(data, path)))
          .digest('hex')
      : info.isDirectory()
        ? 'folder'
        : 'other';
    return `${path} ${(info.mode & 0o7777).toString(8)} ${content}`;
  });
  const db = new Database(join(data, 'board.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = [
      'SELECT pid, content, filepath FROM entries ORDER BY pid',
      'SELECT uid, username, avatar FROM users ORDER BY uid',
      'SELECT url, thumb FROM previews ORDER BY url',
    ].map((sql) => db.prepare(sql).all());
    return { files, rows };
  } finally {
    db.close();
  }
}

const scriptPage =
  '<!doctype html><title>x</title><script>fetch("/api/user/info").then((r) => r.text()).then((t) => fetch("/api/entry/create", { method: "POST", body: new URLSearchParams({ content: t }) }))</script>\n';
const scriptSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>fetch("/api/user/info")</script></svg>\n';

describe('a backup archive with more in it than the board wrote', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });
  let archive: string;
  let entries: TarEntry[];

  before(async () => {
    const image = await imageFixture();
    const anna = t.members.Anna;
    assert.equal(
      (
        await anna.postMultipart('/api/entry/create', { content: 'Bild' }, [
          { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
        ])
      ).status,
      201,
    );
    assert.equal(
      (
        await anna.postMultipart('/api/user/avatar', {}, [
          { name: 'avatar', filename: 'a.jpg', type: 'image/jpeg', data: image },
        ])
      ).status,
      200,
    );
    const thumb = boardMediaPath('preview');
    mkdirSync(join(t.board.config.mediaDir, 'preview'), { recursive: true, mode: 0o700 });
    writeFileSync(join(t.board.config.mediaDir, thumb), image);
    t.board.app.services.db.run(
      "INSERT INTO previews (url, title, thumb, fetched_at) VALUES ('https://example.org/', 'Beispiel', ?, 1)",
      thumb,
    );
    archive = join(emptyFolder(), 'board.tar');
    const run = await runAdmin(t.board, ['backup', '--with-media', archive, '-q']);
    assert.equal(run.code, 0, run.stderr);
    entries = await readTar(archive);
    assert.deepEqual(
      entries.map((e) => e.name.split('/').slice(0, 2).join('/')),
      ['board.db', 'media/a', 'media/e', 'media/preview'],
    );
  });

  /** A stopped board's data folder, restored from the real archive and then changed, so that any restore over it would show. */
  async function liveData(): Promise<string> {
    const data = join(emptyFolder(), 'data');
    const run = await runAdminInProcess(['restore', archive, '-q'], { BOARD_DATA: data });
    assert.equal(run.code, 0, run.stderr);
    const db = new Database(join(data, 'board.db'));
    db.prepare(
      "INSERT INTO previews (url, title, thumb, fetched_at) VALUES ('https://example.org/after', 'Danach', '', 2)",
    ).run();
    db.close();
    return data;
  }

  /** Asserts that nothing under `data` holds the planted bytes. */
  function assertNotPlanted(data: string, ...bodies: string[]): void {
    for (const path of readdirSync(data, { recursive: true }) as string[]) {
      const full = join(data, path);
      if (!lstatSync(full).isFile()) continue;
      const content = readFileSync(full);
      for (const body of bodies) assert.equal(content.includes(body), false, `${path} holds the planted file`);
    }
  }

  for (const [name, body] of [
    ['media/a/x.html', scriptPage],
    ['media/preview/y.svg', scriptSvg],
  ] as const) {
    test(`a real backup plus ${name} with a script: verify exits 1 naming it, restore refuses and changes neither rows nor files`, async () => {
      const hostile = await writeTar([...entries, { name, data: Buffer.from(body) }]);
      const refusal = `the archive holds "${name}", which is neither board.db nor a media file`;

      const verify = await runAdminInProcess(['verify', hostile]);
      assert.equal(verify.code, 1, verify.stdout);
      assert.equal(verify.stdout, '');
      assert.match(
        verify.stderr,
        new RegExp(
          `^board-admin: verify: problem: ${hostile}: ${refusal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(archive, schema \\d+ .*\\)\\n$`,
        ),
      );

      const data = await liveData();
      const before = dataFolderState(data);
      const restore = await runAdminInProcess(['restore', hostile, '-q'], { BOARD_DATA: data });
      assert.equal(restore.code, 1, restore.stdout);
      assert.equal(restore.stdout, '');
      assert.equal(restore.stderr, `board-admin: restore: ${refusal}\n`);
      assert.deepEqual(dataFolderState(data), before, 'the same files with the same modes and bytes, the same rows');
      assertNotPlanted(data, body);
    });
  }

  test('the same page under a name the board writes (an .html saved as e/<hex>.jpg) is refused by its bytes', async () => {
    const image = entries.find((e) => e.name.startsWith('media/e/'))!;
    const hostile = await writeTar(
      entries.map((e) => (e === image ? { name: e.name, data: Buffer.from(scriptPage) } : e)),
    );
    const data = await liveData();
    const before = dataFolderState(data);
    const run = await runAdminInProcess(['restore', hostile, '-q'], { BOARD_DATA: data });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `board-admin: restore: the archive holds "${image.name}", which is not a JPEG image\n`);
    assert.deepEqual(dataFolderState(data), before);
    assertNotPlanted(data, scriptPage);
    const verify = await runAdminInProcess(['verify', hostile]);
    assert.equal(verify.code, 1);
    assert.match(verify.stderr, /which is not a JPEG image \(archive, /);
  });

  test('everything else a backup never writes: refused whole by restore and verify alike, naming the entry, nothing changed', async () => {
    const image = await imageFixture();
    const media = entries.filter((e) => e.name.startsWith('media/'));
    const avatar = media.find((e) => e.name.startsWith('media/a/'))!;
    const unnamed = `media/${boardMediaPath('e')}`;
    const oversized = await writeTar(entries);
    claimSize(oversized, avatar.name, 65 * 1048576);
    const cases: [string, string | Promise<string>, RegExp][] = [
      [
        "an image of the board's kind that no row names",
        writeTar([...entries, { name: unnamed, data: image }]),
        new RegExp(`^the archive holds "${unnamed}", which is a media file no row of its database names$`),
      ],
      [
        'a PNG, SVG or other format under the name of a JPEG',
        writeTar(entries.map((e) => (e === avatar ? { name: e.name, data: Buffer.from(scriptSvg) } : e))),
        /^the archive holds "media\/a\/[0-9a-f]{32}\.jpg", which is not a JPEG image$/,
      ],
      [
        'an empty image',
        writeTar(entries.map((e) => (e === avatar ? { name: e.name, data: Buffer.alloc(0) } : e))),
        /which is not a JPEG image$/,
      ],
      [
        'the same image twice',
        writeTar([...entries, avatar]),
        /^the archive holds "media\/a\/[0-9a-f]{32}\.jpg" twice$/,
      ],
      [
        'an image before board.db',
        writeTar([avatar, ...entries.filter((e) => e !== avatar)]),
        /^the archive begins with "media\/a\/[0-9a-f]{32}\.jpg", not with board\.db$/,
      ],
      [
        'a header claiming 65 MiB',
        oversized,
        /^the archive holds "media\/a\/[0-9a-f]{32}\.jpg", which is larger than any image the board writes \(64 MiB\)$/,
      ],
      [
        'an image in a folder the board does not have',
        writeTar([...entries, { name: `media/x/${media[0]!.name.split('/')[2]}`, data: image }]),
        /which is neither board\.db nor a media file$/,
      ],
      [
        'a thumbnail as PNG (the board writes thumbnails as JPEG only)',
        writeTar([
          ...entries,
          { name: `media/${boardMediaPath('preview', 'png')}`, data: await imageFixture({ format: 'png' }) },
        ]),
        /which is neither board\.db nor a media file$/,
      ],
    ];
    for (const [what, made, refusal] of cases) {
      const file = await made;
      const data = await liveData();
      const before = dataFolderState(data);
      await assert.rejects(
        restoreBackup(loadConfig({ BOARD_DATA: data }), file),
        (err: Error) => refusal.test(err.message),
        what,
      );
      assert.deepEqual(dataFolderState(data), before, what);
      const verified = await verifyBackup(loadConfig({ BOARD_DATA: data }), file);
      assert.equal(verified.problems.length, 1, what);
      assert.match(verified.problems[0]!, refusal, what);
    }
  });

  test('restore writes media files 0600 in folders 0700 and board.db 0600, as the board creates them', async () => {
    const data = join(emptyFolder(), 'data');
    const run = await runAdminWith(['restore', archive, '-q'], { BOARD_DATA: data });
    assert.equal(run.code, 0, run.stderr);
    const mode = (path: string) => (lstatSync(join(data, path)).mode & 0o777).toString(8);
    const modes = (readdirSync(join(data, 'media'), { recursive: true }) as string[])
      .sort()
      .map((path) => `media/${path} ${mode(join('media', path))}`);
    assert.deepEqual(
      modes.map((line) => line.replace(/[0-9a-f]{32}/, '<name>')),
      [
        'media/a 700',
        'media/a/<name>.jpg 600',
        'media/e 700',
        'media/e/<name>.jpg 600',
        'media/preview 700',
        'media/preview/<name>.jpg 600',
      ],
    );
    assert.equal(mode('media'), '700');
    assert.equal(mode('board.db'), '600');
    assert.equal(mode('.'), '700');
  });

  test('a database-only backup readable by anyone is restored 0600 all the same', async () => {
    const entry = entries.find((e) => e.name === 'board.db')!;
    const file = join(emptyFolder(), 'board.db');
    writeFileSync(file, entry.data, { mode: 0o644 });
    const data = join(emptyFolder(), 'data');
    const run = await runAdminInProcess(['restore', file, '-q'], { BOARD_DATA: data });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lstatSync(join(data, 'board.db')).mode & 0o777, 0o600);
  });

  test('backup leaves out a referenced file the board did not write (with a note), so that its archive always restores', async () => {
    const db = t.board.app.services.db;
    const media = t.board.config.mediaDir;
    const disguised = boardMediaPath('preview');
    writeFileSync(join(media, 'preview', 'y.svg'), scriptSvg);
    writeFileSync(join(media, disguised), scriptPage);
    db.run(
      "INSERT INTO previews (url, title, thumb, fetched_at) VALUES ('https://example.org/svg', 'x', 'preview/y.svg', 1), ('https://example.org/html', 'x', ?, 1)",
      disguised,
    );
    try {
      const file = join(emptyFolder(), 'board.tar');
      const run = await runAdmin(t.board, ['backup', '--with-media', file]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /^board-admin: preview\/y\.svg: not a media file the board writes, skipped$/m);
      assert.match(run.stderr, new RegExp(`^board-admin: ${disguised}: not a JPEG image, skipped$`, 'm'));
      assert.match(run.stdout, /; 2 files that are not images the board writes were left out\n$/);
      const names = (await readTar(file)).map((e) => e.name);
      assert.ok(!names.includes('media/preview/y.svg') && !names.includes(`media/${disguised}`), names.join(', '));
      const data = join(emptyFolder(), 'data');
      assert.equal((await runAdminInProcess(['restore', file, '-q'], { BOARD_DATA: data })).code, 0);
      assert.equal(
        existsSync(join(data, 'media', 'preview', 'y.svg')) || existsSync(join(data, 'media', disguised)),
        false,
      );
    } finally {
      db.run("DELETE FROM previews WHERE url IN ('https://example.org/svg', 'https://example.org/html')");
    }
  });
});
