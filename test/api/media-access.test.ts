import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { entryRow, imageFixture, limitsOff, useBoard, visitor } from '../helpers.ts';

/** Finding 9 of the abuse review: entry images stayed in caches for a year, and files were readable by anyone on the machine. */
describe('entry images and the data folder', () => {
  const t = useBoard({ env: limitsOff, members: ['Bea'] });

  async function postImage(content: string): Promise<{ pid: number; filepath: string }> {
    const answer = await t.members.Bea.postMultipart('/api/entry/create', { content }, [{ name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) }]);
    assert.equal(answer.status, 201, answer.text);
    return answer.body;
  }

  test('an entry image is cached 5 minutes, an avatar a day', async () => {
    const { filepath } = await postImage('mit Bild');
    const image = await fetch(`${t.board.url}/static/media/${filepath}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('cache-control'), 'public, max-age=300');
    const avatar = await t.members.Bea.postMultipart('/api/user/avatar', {}, [{ name: 'avatar', filename: 'a.png', data: await imageFixture({ format: 'png' }) }]);
    const served = await fetch(`${t.board.url}/static/media/${avatar.body.avatar}`);
    assert.equal(served.headers.get('cache-control'), 'public, max-age=86400');
  });

  test('the image of a deleted entry answers 404, even when its file is still on disk', async () => {
    const { pid, filepath } = await postImage('wird gelöscht');
    const file = join(t.board.config.mediaDir, filepath);
    const bytes = readFileSync(file);
    assert.equal((await t.members.Bea.post(`/api/entry/${pid}/delete`)).status, 200);
    writeFileSync(file, bytes); // as if its removal had failed
    for (const method of ['GET', 'HEAD']) assert.equal((await fetch(`${t.board.url}/static/media/${filepath}`, { method })).status, 404, method);
  });

  test('so does the image of an entry removed with its file kept (deleted = 1, as moderation removes)', async () => {
    const { pid, filepath } = await postImage('wird entfernt');
    t.board.app.services.db.run('UPDATE entries SET deleted = 1 WHERE pid = ?', pid);
    assert.equal(entryRow(t.board, pid)!.filepath, filepath);
    assert.equal((await visitor(t.board).get(`/static/media/${filepath}`)).status, 404);
  });

  test('board.db, its WAL and the media folder are the owner\'s only, and so are uploaded files', async () => {
    const { filepath } = await postImage('Rechte');
    const mode = (path: string) => statSync(path).mode & 0o777;
    assert.equal(mode(t.board.config.dbPath), 0o600);
    assert.equal(mode(`${t.board.config.dbPath}-wal`), 0o600);
    assert.equal(mode(t.board.config.mediaDir), 0o700);
    assert.equal(mode(join(t.board.config.mediaDir, 'e')), 0o700);
    assert.equal(mode(join(t.board.config.mediaDir, filepath)), 0o600);
  });
});
