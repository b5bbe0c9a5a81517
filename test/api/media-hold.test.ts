import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { writeArchive } from '../../lib/admin/archive.ts';
import { copyDatabase, mediaReferencedBy } from '../../lib/admin/backup.ts';
import { collectOrphanMedia } from '../../lib/admin/gc-media.ts';
import {
  createMediaHold,
  dropMediaHold,
  emptyHeldMedia,
  heldFolder,
  holdFolder,
  holdMaxAgeMs,
} from '../../lib/media/hold.ts';
import {
  emptyFolder,
  imageFixture,
  limitsOff,
  runAdmin,
  runAdminWith,
  startProxiedBoard,
  useBoard,
  visitor,
  eventually,
} from '../helpers.ts';

/**
 * The media hold of backup --with-media (lib/media/hold.ts): a file the server removes between
 * the backup's database snapshot and the archive's turn still goes into the archive.
 */
describe('a media hold while a backup runs', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });
  let image: Buffer;
  const media = () => t.board.config.mediaDir;
  const held = (path: string) => existsSync(join(media(), heldFolder, path));
  const status = async (path: string) => (await visitor(t.board).get(`/static/media/${path}`)).status;

  /** Posts an entry with an image; returns its pid and the image's path. */
  async function entryWithImage(): Promise<{ pid: number; path: string }> {
    const res = await t.members.Anna.postMultipart('/api/entry/create', { content: 'mit Bild' }, [
      { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
    ]);
    assert.equal(res.status, 201, res.text);
    const pid = res.body.pid as number;
    return {
      pid,
      path: t.board.app.services.db.one<{ filepath: string }>('SELECT filepath FROM entries WHERE pid = ?', pid)!
        .filepath,
    };
  }

  async function setAvatar(): Promise<string> {
    const res = await t.members.Anna.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'me.jpg', type: 'image/jpeg', data: image },
    ]);
    assert.equal(res.status, 200, res.text);
    return t.board.app.services.db.one<{ avatar: string }>("SELECT avatar FROM users WHERE username = 'Anna'")!.avatar;
  }

  async function deleteEntry(pid: number): Promise<void> {
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`, {})).status, 200);
  }

  before(async () => {
    image = await imageFixture();
  });

  test('an image deleted and an avatar replaced after the snapshot leave their public paths but still go into the archive; releasing the hold empties the held folder', async () => {
    const entry = await entryWithImage();
    const avatar = await setAvatar();
    const hold = createMediaHold(media());
    const folder = emptyFolder();
    try {
      // The backup's steps, with the server's removals between snapshot and archive.
      const snapshot = join(folder, 'board.db');
      await copyDatabase(t.board.config.dbPath, snapshot);
      await deleteEntry(entry.pid);
      await setAvatar();
      assert.equal(await status(entry.path), 404, "the deleted entry's image is gone at once");
      assert.equal(await status(avatar), 404, 'the replaced avatar is gone at once');
      assert.ok(held(entry.path) && held(avatar), 'both wait in the held folder');
      assert.equal(await status(`${heldFolder}/${avatar}`), 404, 'the held folder is never served');

      const archive = join(folder, 'board.tar');
      writeFileSync(archive, '');
      const written = await writeArchive(archive, snapshot, media(), mediaReferencedBy(snapshot), () => {});
      assert.deepEqual(written.skipped, []);
      const verify = await runAdminWith(['verify', archive]);
      assert.equal(verify.code, 0, verify.stderr);
      assert.match(verify.stdout, /^ok: .*, (\d+) of \1 media files in the archive\n$/);
      const listed = spawnSync('tar', ['-tf', archive], { encoding: 'utf8' }).stdout.split('\n');
      assert.ok(listed.includes(`media/${entry.path}`) && listed.includes(`media/${avatar}`), listed.join(', '));
    } finally {
      dropMediaHold(hold);
    }
    assert.equal(await emptyHeldMedia(media(), Date.now()), 2);
    assert.ok(!held(entry.path) && !held(avatar), 'the held folder is empty once no hold remains');
  });

  test('board-admin backup --with-media releases its hold and empties the held folder at its end', async () => {
    const entry = await entryWithImage();
    const hold = createMediaHold(media());
    await deleteEntry(entry.pid);
    dropMediaHold(hold); // as a backup that ended without emptying the folder (killed)
    assert.ok(held(entry.path));
    const run = await runAdmin(t.board, ['backup', '--with-media', join(emptyFolder(), 'board.tar'), '-q']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(readdirSync(join(media(), holdFolder)), [], 'no hold left behind');
    assert.equal(held(entry.path), false);
  });

  test('a hold of a process that is gone, or one older than the bound, does not defer removals and is cleared', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    mkdirSync(join(media(), holdFolder), { recursive: true });
    const deadHold = join(media(), holdFolder, String(dead));
    writeFileSync(deadHold, `${dead} 2026-01-01T00:00:00.000Z\n`);
    const first = await entryWithImage();
    await deleteEntry(first.pid);
    assert.equal(held(first.path), false, 'deleted, not held');
    assert.equal(existsSync(join(media(), first.path)), false);
    assert.equal(existsSync(deadHold), false, 'the stale hold is gone');

    const old = createMediaHold(media());
    const then = new Date(Date.now() - holdMaxAgeMs - 60_000);
    utimesSync(old, then, then);
    const second = await entryWithImage();
    await deleteEntry(second.pid);
    assert.equal(held(second.path), false);
    assert.equal(existsSync(old), false, 'the old hold is gone');
  });

  test("gc-media walks only the board's folders and, under a hold, moves orphans aside too", async () => {
    const orphan = 'e/orphan0123456789abcdef.jpg';
    writeFileSync(join(media(), orphan), image);
    const hold = createMediaHold(media());
    try {
      const inHeld = join(media(), heldFolder, 'e', 'kept-by-backup.jpg');
      mkdirSync(join(media(), heldFolder, 'e'), { recursive: true });
      writeFileSync(inHeld, image);
      const gc = await collectOrphanMedia(t.board.config, t.board.app.services.db, Date.now() + 2 * 3600_000);
      assert.ok(gc.removed.includes(orphan));
      assert.ok(
        gc.removed.every((path) => !path.startsWith('.')),
        gc.removed.join(', '),
      );
      assert.ok(held(orphan), 'the orphan waits for the backup');
      assert.ok(existsSync(inHeld));
    } finally {
      dropMediaHold(hold);
    }
    await emptyHeldMedia(media(), Date.now());
  });
});

test("the server's housekeeping empties what a killed backup left in media/.held, once no hold remains", async () => {
  const dataDir = emptyFolder('board-held-');
  const leftBehind = join(dataDir, 'media', heldFolder, 'e', 'left-by-a-killed-backup.jpg');
  mkdirSync(dirname(leftBehind), { recursive: true });
  writeFileSync(leftBehind, 'x');
  await new Promise((resolve) => setTimeout(resolve, 100)); // only files held before the check began go
  const board = await startProxiedBoard(limitsOff, { dataDir });
  try {
    await eventually('the held folder emptied at start', () => !existsSync(leftBehind));
  } finally {
    await board.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
