import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { boardMediaPath, emptyFolder, limitsOff, runAdmin, sizeInText, useBoard } from '../helpers.ts';
import { childEnv } from '../helpers/child-env.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/**
 * Issue 28, finding 10: `backup --with-media` into a folder whose disk filled up crashed with an
 * uncaught ENOSPC from tar-stream instead of the one line docs/OPERATIONS.md "Backups" promises. The disk here is
 * a real one: a small tmpfs mounted in a mount namespace of the command's own (`unshare`), so no
 * mount outlives the command and, where user namespaces are allowed, no root is needed.
 */
const adminBin = fileURLToPath(new URL('../../bin/board-admin', import.meta.url));

/** The unshare options that give a private mount namespace here, or why there is none. */
function namespaceOptions(): string[] | string {
  const tries = [['--user', '--map-root-user', '--mount'], ...(process.getuid?.() === 0 ? [['--mount']] : [])];
  let why = 'unshare not found';
  for (const options of tries) {
    const probe = spawnSync('unshare', [...options, 'true'], { encoding: 'utf8' });
    if (probe.status === 0) return options;
    why = probe.error ? String(probe.error.message) : probe.stderr.trim();
  }
  return `needs a private mount namespace for a small tmpfs (unshare --user --map-root-user --mount, or root): ${why}`;
}
const unshare = namespaceOptions();

/** Mounts a tmpfs of `size` bytes on `folder` in a namespace of its own, runs board-admin there, and lists what it left in the folder. */
function adminOnSmallDisk(
  size: number,
  folder: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string; left: string }> {
  const script =
    'size=$1; folder=$2; shift 2; mount -t tmpfs -o "size=$size" board-full "$folder" || exit 97; "$@"; code=$?; printf "left:%s" "$(ls -A "$folder")"; exit $code';
  return new Promise((resolve, reject) => {
    execFile(
      'unshare',
      [...(unshare as string[]), 'sh', '-c', script, 'sh', String(size), folder, adminBin, ...args],
      { env: childEnv(env), timeout: hangBoundMs },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(err);
        const [out, left] = stdout.split('left:');
        resolve({ code: err ? (err.code as number) : 0, stdout: out!, stderr, left: left ?? '(not listed)' });
      },
    );
  });
}

describe('a backup into a disk that fills up', { skip: typeof unshare === 'string' ? unshare : false }, () => {
  const t = useBoard({ env: limitsOff });
  let databaseBytes: number;

  // Preview thumbnails of noise, 2 MiB in all: more than the small disk holds after the database.
  before(async () => {
    const db = t.board.app.services.db;
    mkdirSync(join(t.board.config.mediaDir, 'preview'), { recursive: true, mode: 0o700 });
    for (let i = 0; i < 4; i++) {
      const noise = randomBytes(600 * 600 * 3); // about 500 KB as a JPEG of quality 100
      const path = boardMediaPath('preview');
      writeFileSync(
        join(t.board.config.mediaDir, path),
        await sharp(noise, { raw: { width: 600, height: 600, channels: 3 } })
          .jpeg({ quality: 100 })
          .toBuffer(),
      );
      db.run(
        'INSERT INTO previews (url, title, thumb, fetched_at) VALUES (?, ?, ?, 1)',
        `https://example.org/${i}`,
        'Rauschen',
        path,
      );
    }
    const { n } = db.one<{ n: number }>(
      'SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()',
    )!;
    databaseBytes = n;
  });

  const cases: [string, string[], () => number][] = [
    // Room for the database copy and its place in the archive, not for the images: tar-stream's writes fail.
    ['backup --with-media, full while writing the images', ['--with-media'], () => 2 * databaseBytes + 256 * 1024],
    // Too small for the database copy itself: SQLite's writes fail, in both forms.
    ['backup --with-media, full while copying the database', ['--with-media'], () => Math.floor(databaseBytes / 2)],
    ['backup of the database alone, full while copying it', [], () => Math.floor(databaseBytes / 2)],
  ];
  for (const [what, options, size] of cases) {
    test(`${what}: one line on stderr, exit 1, nothing left in the folder, no media hold left`, async () => {
      const folder = emptyFolder();
      const file = join(folder, 'board.tar');
      const run = await adminOnSmallDisk(size(), folder, ['backup', ...options, file, '-q'], {
        BOARD_DATA: t.board.config.dataDir,
      });
      assert.notEqual(run.code, 97, `mounting the tmpfs failed: ${run.stderr}`);
      assert.equal(run.stderr, `board-admin: backup: no space left in ${folder} (ENOSPC)\n`);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.equal(run.left, '', 'no archive, no temporary file on the full disk');
      assert.deepEqual(readdirSync(folder), [], 'and nothing under the mount point');
      const holds = join(t.board.config.mediaDir, '.hold');
      assert.deepEqual(existsSync(holds) ? readdirSync(holds) : [], []);
    });
  }

  for (const [what, size, refusal] of [
    [
      'its database',
      () => Math.floor(databaseBytes / 2),
      new RegExp(`the archive's board\\.db needs ${sizeInText}, but (\\S+) has ${sizeInText} free`),
    ],
    [
      'an image',
      () => Math.floor(databaseBytes * 1.5) + 100 * 1024,
      // A thumbnail under 1 MiB: in KiB, where a size in MiB read "0.5 MiB".
      new RegExp(`media/preview/[0-9a-f]{32}\\.jpg needs \\d+ KiB, but (\\S+) has ${sizeInText} free`),
    ],
  ] as const) {
    test(`restore into a BOARD_DATA without room for ${what}: refused before writing it, one line, exit 1, nothing left`, async () => {
      const archive = join(emptyFolder(), 'board.tar');
      assert.equal((await runAdmin(t.board, ['backup', '--with-media', archive, '-q'])).code, 0);
      const data = emptyFolder();
      const run = await adminOnSmallDisk(size(), data, ['restore', archive, '-q'], { BOARD_DATA: data });
      assert.notEqual(run.code, 97, `mounting the tmpfs failed: ${run.stderr}`);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`^board-admin: restore: ${refusal.source}\n$`));
      assert.equal(refusal.exec(run.stderr)![1], data);
      assert.equal(run.left, '', 'no database, no media, no scratch folder');
    });
  }

  test("the same disk with room enough takes the whole archive (the sizes above are the disk's, not the code's)", async () => {
    const folder = emptyFolder();
    const run = await adminOnSmallDisk(
      2 * databaseBytes + 8 * 1048576,
      folder,
      ['backup', '--with-media', join(folder, 'board.tar'), '-q'],
      { BOARD_DATA: t.board.config.dataDir },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /and 4 media files /);
    assert.equal(run.left, 'board.tar');
  });
});
