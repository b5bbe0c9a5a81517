import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  boardMediaPath,
  emptyFolder,
  entryRow,
  imageFixture,
  limitsOff,
  useBoard,
  visitor,
} from '../helpers.ts';

/** Finding 9 of the abuse review: entry images stayed in caches for a year, and files were readable by anyone on the machine. */
describe('entry images and the data folder', () => {
  const t = useBoard({ env: limitsOff, members: ['Bea'] });

  async function postImage(content: string): Promise<{ pid: number; filepath: string }> {
    const answer = await t.members.Bea.postMultipart('/api/entry/create', { content }, [
      { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    assert.equal(answer.status, 201, answer.text);
    return answer.body;
  }

  test('an entry image is cached 5 minutes, an avatar a day', async () => {
    const { filepath } = await postImage('mit Bild');
    const image = await fetch(`${t.board.url}/static/media/${filepath}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('cache-control'), 'public, max-age=300');
    const avatar = await t.members.Bea.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    const served = await fetch(`${t.board.url}/static/media/${avatar.body.avatar}`);
    assert.equal(served.headers.get('cache-control'), 'public, max-age=86400');
  });

  test('the image of a deleted entry answers 404, even when its file is still on disk', async () => {
    const { pid, filepath } = await postImage('wird gelöscht');
    const file = join(t.board.config.mediaDir, filepath);
    const bytes = readFileSync(file);
    assert.equal((await t.members.Bea.post(`/api/entry/${pid}/delete`)).status, 200);
    writeFileSync(file, bytes); // as if its removal had failed
    for (const method of ['GET', 'HEAD'])
      assert.equal((await fetch(`${t.board.url}/static/media/${filepath}`, { method })).status, 404, method);
  });

  test('so does the image of an entry removed with its file kept (deleted = 1, as moderation removes)', async () => {
    const { pid, filepath } = await postImage('wird entfernt');
    t.board.app.services.db.run('UPDATE entries SET deleted = 1 WHERE pid = ?', pid);
    assert.equal(entryRow(t.board, pid)!.filepath, filepath);
    assert.equal((await visitor(t.board).get(`/static/media/${filepath}`)).status, 404);
  });

  test("board.db, its WAL and the media folder are the owner's only, and so are uploaded files", async () => {
    const { filepath } = await postImage('Rechte');
    const mode = (path: string) => statSync(path).mode & 0o777;
    assert.equal(mode(t.board.config.dbPath), 0o600);
    assert.equal(mode(`${t.board.config.dbPath}-wal`), 0o600);
    assert.equal(mode(t.board.config.mediaDir), 0o700);
    assert.equal(mode(join(t.board.config.mediaDir, 'e')), 0o700);
    assert.equal(mode(join(t.board.config.mediaDir, filepath)), 0o600);
  });
});

/**
 * Issue 28, finding 4: whatever lies in the media folder (a restored archive, a copy by hand), the
 * board serves only images it would have written itself, and each with a policy that lets its
 * document run nothing.
 */
describe('only the images the board writes are served from /static/media/', () => {
  const t = useBoard({ env: limitsOff, members: ['Bea'] });
  const mediaCsp = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
  const script = '<!doctype html><script>fetch("/api/user/info")</script>';
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/api/user/info")</script></svg>';

  /** Puts bytes at a path under media/, as a restore or a copy by hand would. */
  function plant(path: string, data: string | Buffer): string {
    mkdirSync(join(t.board.config.mediaDir, path, '..'), { recursive: true });
    writeFileSync(join(t.board.config.mediaDir, path), data);
    return path;
  }

  test('an entry image, an avatar and a preview thumbnail: their image type, nosniff, a policy that allows nothing, the cache rule of its folder', async () => {
    const formats = ['jpeg', 'png', 'gif', 'webp'] as const;
    const served: [string, string, string][] = [];
    for (const format of formats) {
      const answer = await t.members.Bea.postMultipart('/api/entry/create', { content: format }, [
        { name: 'file', filename: 'x', data: await imageFixture({ format }) },
      ]);
      assert.equal(answer.status, 201, answer.text);
      served.push([answer.body.filepath, `image/${format}`, 'public, max-age=300']);
    }
    const avatar = await t.members.Bea.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'x', data: await imageFixture({ format: 'webp' }) },
    ]);
    served.push([avatar.body.avatar, 'image/webp', 'public, max-age=86400']);
    served.push([
      plant(boardMediaPath('preview'), await imageFixture()),
      'image/jpeg',
      'public, max-age=31536000, immutable',
    ]);
    for (const [path, type, cache] of served) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await visitor(t.board).send(method, `/static/media/${path}`, undefined);
        assert.equal(answer.status, 200, `${method} ${path}`);
        assertDocumented(answer);
        assert.equal(answer.headers.get('content-type'), type, path);
        assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path);
        assert.equal(answer.headers.get('content-security-policy'), mediaCsp, path);
        assert.equal(answer.headers.get('cache-control'), cache, path);
        assert.equal(
          answer.headers.get('content-length'),
          String(statSync(join(t.board.config.mediaDir, path)).size),
          path,
        );
      }
    }
  });

  test("a page, an SVG, or a page under an image's name, put there by any means: 404, never the file", async () => {
    const jpeg = await imageFixture();
    const liveEntry = await t.members.Bea.postMultipart('/api/entry/create', { content: 'wird ersetzt' }, [
      { name: 'file', filename: 'x', data: jpeg },
    ]);
    writeFileSync(join(t.board.config.mediaDir, liveEntry.body.filepath), script); // a live entry's image, its bytes a page
    const outside = join(emptyFolder(), 'elsewhere.jpg');
    writeFileSync(outside, jpeg);
    const link = boardMediaPath('a');
    mkdirSync(join(t.board.config.mediaDir, 'a'), { recursive: true });
    symlinkSync(outside, join(t.board.config.mediaDir, link));
    const planted = [
      plant('a/x.html', script),
      plant('preview/y.svg', svg),
      plant(`a/${boardMediaPath('a').slice(2, -4)}.svg`, svg),
      plant(boardMediaPath('a', 'png'), script),
      plant(boardMediaPath('preview'), script),
      plant(boardMediaPath('preview'), Buffer.alloc(0)),
      plant(boardMediaPath('preview', 'png'), await imageFixture({ format: 'png' })), // the board writes thumbnails as JPEG only
      plant(boardMediaPath('a', 'gif'), jpeg), // a JPEG named .gif
      plant(`x/${boardMediaPath('a').slice(2)}`, jpeg), // a folder the board does not have
      plant(`a/${boardMediaPath('a').slice(2).toUpperCase()}`, jpeg),
      plant('a/avatar.jpg', jpeg),
      liveEntry.body.filepath,
      link,
    ];
    for (const path of planted) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await visitor(t.board).send(method, `/static/media/${path}`, undefined);
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.match(answer.headers.get('content-type')!, /^text\/html/, path); // the board's own 404 page
        assert.doesNotMatch(answer.text, /api\/user\/info/, path);
      }
    }
  });

  test('a name too long for the file system, or a path through a file, is a missing file: 404, not 500', async () => {
    for (const path of [
      `/static/${'a'.repeat(300)}.js`,
      '/static/app.js/x.js',
      `/static/media/a/${'b'.repeat(300)}.jpg`,
    ]) {
      const answer = await visitor(t.board).get(path);
      assert.equal(answer.status, 404, path);
    }
  });
});
