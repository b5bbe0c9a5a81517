import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isMissingFile } from '../../lib/http/static.ts';
import { removeMedia } from '../../lib/media/files.ts';
import { holdFolder, mediaHeld } from '../../lib/media/hold.ts';
import { emptyFolder } from '../helpers.ts';

/**
 * Issue 30: media files are "missing" only when there is no such file; any other failure is the
 * server's and is said, not swallowed behind a comment that excuses a missing file.
 */

const root = emptyFolder('board-media-errors-');
after(() => rmSync(root, { recursive: true, force: true }));

const name = (n: number) => `e/${String(n).padStart(32, '0')}.png`;

test('removeMedia removes what it can, says nothing of a missing file, and logs any other failure', async () => {
  const mediaDir = join(root, 'remove');
  mkdirSync(join(mediaDir, 'e'), { recursive: true });
  writeFileSync(join(mediaDir, name(1)), 'png');
  writeFileSync(join(mediaDir, name(3)), 'png');
  // A folder where a file should be: rm refuses it (as it would refuse a file on a failing disk).
  mkdirSync(join(mediaDir, name(2)));
  writeFileSync(join(mediaDir, name(2), 'inside'), 'x');
  const lines: string[] = [];
  await removeMedia({ mediaDir }, [name(1), name(2), name(3), name(4)], (line) => lines.push(line));
  assert.equal(existsSync(join(mediaDir, name(1))), false);
  assert.equal(existsSync(join(mediaDir, name(3))), false, 'a failure does not stop the removal of the rest');
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, new RegExp(`^media: cannot remove ${name(2)}, left for gc-media: .*EISDIR`));
});

test('an unreadable hold folder is an error, not "no hold": removals must not delete what a backup may need', async () => {
  const mediaDir = join(root, 'hold');
  mkdirSync(mediaDir, { recursive: true });
  assert.equal(await mediaHeld(mediaDir), false, 'no hold folder: no hold');
  writeFileSync(join(mediaDir, holdFolder), 'not a folder');
  await assert.rejects(mediaHeld(mediaDir), { code: 'ENOTDIR' });
  mkdirSync(join(mediaDir, 'e'));
  writeFileSync(join(mediaDir, name(5)), 'png');
  const lines: string[] = [];
  await removeMedia({ mediaDir }, [name(5)], (line) => lines.push(line));
  assert.equal(existsSync(join(mediaDir, name(5))), true, 'kept while the holds cannot be read');
  assert.match(lines[0]!, /^media: cannot remove .*ENOTDIR/);
});

test('serving: only "no such file" is a missing file', () => {
  for (const code of ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP'])
    assert.equal(isMissingFile(Object.assign(new Error(code), { code })), true, code);
  for (const code of ['EACCES', 'EIO', 'EMFILE', 'EPERM', undefined])
    assert.equal(isMissingFile(Object.assign(new Error(String(code)), { code })), false, String(code));
});
