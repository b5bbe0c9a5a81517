import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { pack } from 'tar-stream';
import { restoreBackup } from '../../lib/admin/restore.ts';
import { verifyBackup } from '../../lib/admin/verify.ts';
import { loadConfig } from '../../lib/config.ts';
import {
  boardMediaPath,
  emptyFolder,
  imageFixture,
  limitsOff,
  mediaFiles,
  post,
  runAdmin,
  runAdminHere,
  runAdminInProcess,
  runAdminWith,
  sizeInText,
  startBoard,
  useBoard,
} from '../helpers.ts';

/**
 * backup --with-media, restore and verify: a whole board in one tar file, and back. The backups
 * and restores a test is about run as the real program; backups made only to have an archive, and
 * the refusals, run bin/board-admin's runCli in this process (the same lines and exit codes,
 * without a process start each).
 */
describe('a board with images, avatars and a preview thumbnail', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Ben'] });
  let image: Buffer;
  const pids: number[] = [];

  before(async () => {
    image = await imageFixture();
    for (const name of ['Anna', 'Ben'] as const) {
      const client = t.members[name];
      const withImage = await client.postMultipart('/api/entry/create', { content: `Bild von ${name}` }, [
        { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
      ]);
      assert.equal(withImage.status, 201, withImage.text);
      pids.push(withImage.body.pid as number, await post(client, `Text von ${name}`));
      const avatar = await client.postMultipart('/api/user/avatar', {}, [
        { name: 'avatar', filename: 'me.jpg', type: 'image/jpeg', data: image },
      ]);
      assert.equal(avatar.status, 200, avatar.text);
    }
    // A link preview's thumbnail, as the preview fetcher would have stored it.
    const thumb = boardMediaPath('preview');
    mkdirSync(join(t.board.config.mediaDir, 'preview'), { recursive: true });
    writeFileSync(join(t.board.config.mediaDir, thumb), image);
    t.board.app.services.db.run(
      "INSERT INTO previews (url, title, thumb, fetched_at) VALUES ('https://example.org/', 'Beispiel', ?, 1)",
      thumb,
    );
  });

  const referenced = () =>
    t.board.app.services.db
      .all<{ path: string }>(
        "SELECT filepath AS path FROM entries WHERE filepath <> '' UNION SELECT avatar FROM users WHERE avatar <> '' UNION SELECT thumb FROM previews WHERE thumb <> ''",
      )
      .map((r) => r.path)
      .sort();

  const tarList = (file: string) =>
    execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).split('\n').filter(Boolean);

  describe('backup --with-media', () => {
    test('writes one tar file that tar lists: board.db first, then every referenced media file', async () => {
      const folder = emptyFolder();
      const file = join(folder, 'board.tar');
      const run = await runAdmin(t.board, ['backup', '--with-media', file]);
      assert.equal(run.code, 0, run.stderr);
      const media = referenced();
      assert.equal(media.length, 5, 'two entry images, two avatars, one thumbnail');
      assert.match(
        run.stdout,
        new RegExp(
          `^backed up ${t.board.config.dbPath} \\(\\d+ pages\\) and 5 media files \\(${sizeInText}\\) to ${file}\\n$`,
        ),
      );
      assert.deepEqual(tarList(file), ['board.db', ...media.map((p) => `media/${p}`)]);
      assert.deepEqual(readdirSync(folder), ['board.tar'], 'nothing else left in the folder');
      assert.equal(statSync(file).mode & 0o777, 0o600);

      const unpacked = emptyFolder();
      execFileSync('tar', ['-xf', file, '-C', unpacked]);
      assert.deepEqual(
        readFileSync(join(unpacked, 'media', media[0]!)),
        readFileSync(join(t.board.config.mediaDir, media[0]!)),
      );
      const copy = new Database(join(unpacked, 'board.db'), { readonly: true });
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
      copy.close();
    });

    test('a referenced file deleted meanwhile is left out with a note; verify then reports it missing', async () => {
      const path = boardMediaPath('preview');
      const gone = join(t.board.config.mediaDir, path);
      writeFileSync(gone, image);
      t.board.app.services.db.run(
        "INSERT INTO previews (url, title, thumb, fetched_at) VALUES ('https://example.org/gone', 'Weg', ?, 1)",
        path,
      );
      rmSync(gone);
      try {
        const file = join(emptyFolder(), 'board.tar');
        const run = await runAdmin(t.board, ['backup', '--with-media', file]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, new RegExp(`^board-admin: ${path}: deleted meanwhile, skipped$`, 'm'));
        assert.match(run.stdout, /; 1 files deleted meanwhile were left out\n$/);
        assert.ok(!tarList(file).includes(`media/${path}`));
        const verify = await runAdminInProcess(['verify', file]);
        assert.equal(verify.code, 1);
        assert.match(
          verify.stderr,
          new RegExp(`^board-admin: verify: problem: .*: 1 media files missing from the archive \\(${path}\\)`),
        );
      } finally {
        t.board.app.services.db.run("DELETE FROM previews WHERE url = 'https://example.org/gone'");
      }
    });

    test('a large board gets progress lines on stderr (every 500 files), and --quiet leaves them out', async () => {
      const db = t.board.app.services.db;
      const many = Array.from({ length: 1000 }, () => boardMediaPath('preview'));
      db.tx(() => {
        for (const [i, path] of many.entries())
          db.run(
            'INSERT INTO previews (url, title, thumb, fetched_at) VALUES (?, ?, ?, 1)',
            `https://example.org/many/${i}`,
            'x',
            path,
          );
      });
      for (const path of many) writeFileSync(join(t.board.config.mediaDir, path), image);
      try {
        const run = await runAdmin(t.board, ['backup', '--with-media', join(emptyFolder(), 'board.tar')]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, new RegExp(`^board-admin: 500/1005 media files, ${sizeInText} written$`, 'm'));
        assert.match(run.stderr, /^board-admin: 1000\/1005 media files/m);
        const quiet = await runAdmin(t.board, ['backup', '--with-media', join(emptyFolder(), 'board.tar'), '--quiet']);
        assert.equal(quiet.code, 0);
        assert.equal(quiet.stderr, '');
      } finally {
        db.run("DELETE FROM previews WHERE url LIKE 'https://example.org/many/%'");
        for (const path of many) rmSync(join(t.board.config.mediaDir, path));
      }
    });
  });

  describe('restore', () => {
    let archive: string;
    let databaseOnly: string;
    before(async () => {
      const folder = emptyFolder();
      archive = join(folder, 'board.tar');
      databaseOnly = join(folder, 'board.db');
      assert.equal((await runAdminHere(t.board, ['backup', '--with-media', archive, '-q'])).code, 0);
      assert.equal((await runAdminHere(t.board, ['backup', databaseOnly, '-q'])).code, 0);
    });

    test('an archive into a fresh BOARD_DATA brings back the database and the media; the board serves every entry and image', async () => {
      const data = join(emptyFolder(), 'data');
      const run = await runAdminWith(['restore', archive], { BOARD_DATA: data });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(
        run.stdout,
        `restored ${archive} to ${join(data, 'board.db')} and 5 media files into ${join(data, 'media')}\n`,
      );
      assert.equal(run.stderr, `board-admin: database ${join(data, 'board.db')}\n`, 'no warning: nothing is missing');
      assert.deepEqual(readdirSync(data).sort(), ['board.db', 'media']);
      const restored = await startBoard({}, { dataDir: data });
      try {
        assert.deepEqual(mediaFiles(restored), referenced());
        for (const pid of pids) {
          const thread = await restored.client().get(`/api/entry/${pid}/thread`);
          assert.equal(thread.status, 200);
          const filepath = thread.body.entry.filepath as string;
          if (filepath) assert.equal((await restored.client().get(`/static/media/${filepath}`)).status, 200, filepath);
        }
        for (const path of referenced())
          assert.equal((await restored.client().get(`/static/media/${path}`)).status, 200, path);
      } finally {
        await restored.close();
      }
    });

    test('a database-only restore warns how many media files are missing', async () => {
      const data = join(emptyFolder(), 'data');
      const run = await runAdminInProcess(['restore', databaseOnly], { BOARD_DATA: data });
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(
          `^board-admin: warning: 5 media files the restored database refers to are missing from ${join(data, 'media')}; copy them back \\(rsync\\) or restore a backup made with --with-media$`,
          'm',
        ),
      );
    });

    test('a file that does not exist: "file not found", exit 1, nothing created', async () => {
      const data = join(emptyFolder(), 'data');
      const run = await runAdminInProcess(['restore', '/nowhere/board.tar', '-q'], { BOARD_DATA: data });
      assert.equal(run.code, 1);
      assert.equal(run.stderr, 'board-admin: restore: /nowhere/board.tar: file not found\n');
      assert.equal(existsSync(data), false);
    });

    test('refuses while a server uses the folder, and changes nothing', async () => {
      const data = emptyFolder();
      writeFileSync(join(data, 'server.pid'), `${process.pid}\n`); // this test process plays the running server
      const run = await runAdminWith(['restore', archive, '-q'], { BOARD_DATA: data });
      assert.equal(run.code, 1);
      assert.equal(run.stderr, `board-admin: restore: a server (pid ${process.pid}) is using ${data}: stop it first\n`);
      assert.deepEqual(readdirSync(data), ['server.pid']);
    });
  });

  describe('a hostile archive', () => {
    let goodDb: Buffer;
    before(async () => {
      const file = join(emptyFolder(), 'board.db');
      assert.equal((await runAdminHere(t.board, ['backup', file, '-q'])).code, 0);
      goodDb = readFileSync(file);
    });

    /** A tar file with a real board.db and one more entry of the attacker's choosing. */
    async function hostileArchive(entry: {
      name: string;
      type?: 'file' | 'symlink' | 'link' | 'directory' | 'character-device' | 'fifo';
      linkname?: string;
    }): Promise<string> {
      const file = join(emptyFolder(), 'evil.tar');
      const archive = pack();
      const out = archive.pipe(createWriteStream(file) as unknown as NodeJS.WritableStream);
      archive.entry({ name: 'board.db' }, goodDb);
      if (entry.type && entry.type !== 'file') archive.entry(entry);
      else archive.entry({ ...entry, type: 'file' }, 'pwned\n');
      archive.finalize();
      await new Promise((resolve) => (out as unknown as NodeJS.EventEmitter).on('close', resolve));
      return file;
    }

    const attacks: [string, Parameters<typeof hostileArchive>[0]][] = [
      ['a parent-folder path', { name: '../evil.txt' }],
      ['a media path climbing out', { name: 'media/e/../../../evil.txt' }],
      ['an absolute path', { name: '/tmp/board-evil.txt' }],
      ['a hidden file', { name: 'media/e/.htaccess' }],
      ['a file outside media/', { name: 'server.pid' }],
      ['a symlink', { name: 'media/e/link.jpg', type: 'symlink', linkname: '/etc/passwd' }],
      ['a hard link', { name: 'media/e/hard.jpg', type: 'link', linkname: 'board.db' }],
      ['a device', { name: 'media/e/0123456789abcdef0123456789abcdef.jpg', type: 'character-device' }],
      ['a fifo', { name: 'media/e/0123456789abcdef0123456789abcdef.jpg', type: 'fifo' }],
      ['a folder', { name: 'media/e/', type: 'directory' }],
      ['a second database', { name: 'board.db' }],
    ];
    const refusal =
      /^the archive holds "[^"]*"(, which is (neither board\.db nor a media file|not a plain file \([\w-]+\))| twice)$/;
    for (const [what, entry] of attacks) {
      test(`with ${what} is refused whole by restore and verify, and nothing is written outside or inside BOARD_DATA`, async () => {
        const file = await hostileArchive(entry);
        const root = emptyFolder();
        const data = join(root, 'board', 'data');
        await assert.rejects(restoreBackup(loadConfig({ BOARD_DATA: data }), file), (err: Error) =>
          refusal.test(err.message),
        );
        assert.deepEqual(readdirSync(data), [], 'no database, no media, no scratch folder');
        assert.deepEqual(readdirSync(root), ['board']);
        assert.deepEqual(readdirSync(join(root, 'board')), ['data']);
        assert.equal(existsSync('/tmp/board-evil.txt'), false);
        const verified = await verifyBackup(loadConfig({ BOARD_DATA: data }), file);
        assert.equal(verified.problems.length, 1);
        assert.match(verified.problems[0]!, refusal);
      });
    }

    test('the real program: restore of a hostile archive is one line, exit 1', async () => {
      const data = join(emptyFolder(), 'data');
      const run = await runAdminInProcess(['restore', await hostileArchive(attacks[0]![1]), '-q'], {
        BOARD_DATA: data,
      });
      assert.equal(run.code, 1, run.stdout);
      assert.equal(
        run.stderr,
        'board-admin: restore: the archive holds "../evil.txt", which is neither board.db nor a media file\n',
      );
      assert.deepEqual(readdirSync(data), []);
    });
  });

  // verify runs in this process here (runAdminHere, runAdminInProcess): it only reads; the real
  // program verifies in 'backup --with-media' above and meets a damaged file in the last test.
  describe('verify', () => {
    test('a good archive and a database whose media are in BOARD_DATA: one "ok" line, exit 0, the live board untouched', async () => {
      const folder = emptyFolder();
      assert.equal((await runAdminHere(t.board, ['backup', '--with-media', join(folder, 'b.tar'), '-q'])).code, 0);
      assert.equal((await runAdminHere(t.board, ['backup', join(folder, 'b.db'), '-q'])).code, 0);
      const before = readdirSync(t.board.config.dataDir).sort();
      const archive = await runAdminHere(t.board, ['verify', join(folder, 'b.tar')]);
      assert.equal(archive.code, 0, archive.stderr);
      assert.equal(archive.stderr, '');
      assert.match(
        archive.stdout,
        /^ok: .*b\.tar: archive, schema \d+ \(this code: \d+\), integrity ok, 4 entries \(4 live, 0 deleted or removed\), 2 users \(2 admitted, 0 applying or rejected\), 5 of 5 media files in the archive\n$/,
      );
      const database = await runAdminHere(t.board, ['verify', join(folder, 'b.db')]);
      assert.equal(database.code, 0, database.stderr);
      assert.match(
        database.stdout,
        new RegExp(`^ok: .*b\\.db: database, .*, 5 of 5 media files in ${t.board.config.mediaDir}\\n$`),
      );
      assert.deepEqual(readdirSync(t.board.config.dataDir).sort(), before);
    });

    test('a database whose media are missing, or whose BOARD_DATA has no media folder: "problem", exit 1', async () => {
      const file = join(emptyFolder(), 'b.db');
      assert.equal((await runAdminHere(t.board, ['backup', file, '-q'])).code, 0);
      const elsewhere = emptyFolder();
      const noMedia = await runAdminInProcess(['verify', file], { BOARD_DATA: elsewhere });
      assert.equal(noMedia.code, 1);
      assert.match(
        noMedia.stderr,
        new RegExp(
          `^board-admin: verify: problem: .*: ${join(elsewhere, 'media')} does not exist: 5 media files not found`,
        ),
      );
      assert.deepEqual(readdirSync(elsewhere), [], 'verify creates nothing');
      mkdirSync(join(elsewhere, 'media', 'e'), { recursive: true });
      const some = referenced().find((p) => p.startsWith('e/'))!;
      copyFileSync(join(t.board.config.mediaDir, some), join(elsewhere, 'media', some));
      const partly = await runAdminInProcess(['verify', file], { BOARD_DATA: elsewhere });
      assert.equal(partly.code, 1);
      assert.match(partly.stderr, /problem: .*: 4 media files missing from /);
    });

    test('--data checks BOARD_DATA itself (a restored pair): ok beside the running board, "problem" naming a missing file', async () => {
      const live = await runAdminHere(t.board, ['verify', '--data']);
      assert.equal(live.code, 0, live.stderr);
      assert.match(
        live.stdout,
        new RegExp(
          `^ok: ${t.board.config.dataDir}: data folder, schema \\d+ .*integrity ok, 4 entries \\(4 live, 0 deleted or removed\\), 2 users \\(2 admitted, 0 applying or rejected\\), 5 of 5 media files in ${t.board.config.mediaDir}\\n$`,
        ),
      );
      // A restored folder whose media copy lacks one image.
      const restored = emptyFolder();
      assert.equal((await runAdminHere(t.board, ['backup', join(restored, 'board.db'), '-q'])).code, 0);
      cpSync(t.board.config.mediaDir, join(restored, 'media'), { recursive: true });
      const gone = referenced().find((p) => p.startsWith('e/'))!;
      rmSync(join(restored, 'media', gone));
      const partly = await runAdminInProcess(['verify', '--data'], { BOARD_DATA: restored });
      assert.equal(partly.code, 1);
      assert.match(
        partly.stderr,
        new RegExp(`^board-admin: verify: problem: ${restored}: 1 media files missing from .*\\(${gone}\\)`),
      );
      for (const args of [['verify'], ['verify', '--data', 'b.db']]) {
        const wrong = await runAdminInProcess(args, { BOARD_DATA: restored });
        assert.equal(wrong.code, 2, wrong.stderr);
      }
    });

    test('a damaged, truncated, foreign or missing file: "problem", exit 1', async () => {
      const folder = emptyFolder();
      const archive = join(folder, 'b.tar');
      assert.equal((await runAdminHere(t.board, ['backup', '--with-media', archive, '-q'])).code, 0);
      const bytes = readFileSync(archive);
      writeFileSync(join(folder, 'truncated.tar'), bytes.subarray(0, Math.floor(bytes.length / 2)));
      const damaged = Buffer.from(bytes);
      damaged.fill(0xff, 512 + 4096 * 2, 512 + 4096 * 4); // pages inside board.db, the archive's first entry
      writeFileSync(join(folder, 'damaged.tar'), damaged);
      writeFileSync(join(folder, 'notes.txt'), 'not a backup');
      for (const [name, problem] of [
        ['truncated.tar', /./],
        ['damaged.tar', /integrity|not a board database/],
        ['notes.txt', /^neither a board database nor a backup --with-media archive$/],
        ['missing.tar', /^file not found$/],
      ] as const) {
        const { problems } = await verifyBackup(loadConfig({ BOARD_DATA: folder }), join(folder, name));
        assert.equal(problems.length, 1, `${name}: ${problems.join('; ')}`);
        assert.match(problems[0]!, problem, name);
        assert.doesNotMatch(problems[0]!, /\n/, 'one line');
      }
      const run = await runAdminInProcess(['verify', join(folder, 'damaged.tar')]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^board-admin: verify: problem: .*damaged\.tar: .*\n$/);
      assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, run.stderr);
    });
  });
});
