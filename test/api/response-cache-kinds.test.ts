import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';
import { reindexEntry } from '../../lib/search/index.ts';
import { limitsOff, post, uidOf, useBoard, visitor } from '../helpers.ts';

/**
 * The kinds the response cache keeps besides feed pages, threads and user feeds (search pages,
 * Atom feeds, share pages; lib/http/response-cache.ts): they are served from the cache, and a commit
 * of another connection (board-admin, another worker) drops them like every other kind.
 */
const t = useBoard({ env: limitsOff, members: ['Anna'] });

test("search pages, Atom feeds and share pages come from the cache, and another process's commit drops them", async () => {
  const pid = await post(t.members.Anna, 'Holunderblüten im Mai');
  const paths = ['/api/search/0?q=holunder', '/feed.atom', '/u/Anna/feed.atom', `/e/${pid}`];
  const read = async (path: string) => {
    const answer = await visitor(t.board).get(path);
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    return answer.text;
  };
  for (const path of paths) assert.match(await read(path), /Holunderblüten/, path);

  // Changed on the board's own connection behind the cache's back: every page is still the cached one.
  t.board.app.services.db.run("UPDATE entries SET content = 'Holunderblüten heimlich' WHERE pid = ?", pid);
  for (const path of paths) assert.doesNotMatch(await read(path), /heimlich/, `${path} is served from the cache`);

  // The same entry changed through another connection, its index row with it.
  const other = openDb(t.board.config.dbPath);
  try {
    const content = 'Fliedersirup im Juni';
    other.tx(() => {
      other.run('UPDATE entries SET content = ? WHERE pid = ?', content, pid);
      reindexEntry(other, { pid, uid: uidOf(t.board, 'Anna'), content, alt: '' });
    });
  } finally {
    await other.close();
  }
  for (const path of paths.slice(1))
    assert.match(await read(path), /Fliedersirup im Juni/, `${path} after another process's commit`);
  assert.deepEqual(JSON.parse(await read('/api/search/0?q=holunder')), [], 'the old words find nothing');
  assert.deepEqual(
    JSON.parse(await read('/api/search/0?q=flieder')).map((e: { pid: number }) => e.pid),
    [pid],
  );
});
