import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openTorExitList } from '../../lib/limits/tor.ts';
import { emptyFolder } from '../helpers.ts';

const folder = emptyFolder('board-tor-');
after(() => rmSync(folder, { recursive: true, force: true }));

let n = 0;
/** A fresh list file with the given lines. */
function listFile(...lines: string[]): string {
  const path = join(folder, `exits-${++n}.txt`);
  writeFileSync(path, lines.join('\n'));
  return path;
}

test('a missing file is an empty list, not an error', () => {
  const list = openTorExitList(join(folder, 'nothing-here.txt'), { recheckMs: 0 });
  assert.equal(list.has('1.2.3.4'), false);
});

test('comments, blank lines and surrounding whitespace are ignored', () => {
  const list = openTorExitList(listFile('# ExitAddress list', '', '  1.2.3.4  ', '\t5.6.7.8\r', '   # 9.9.9.9', ''), {
    recheckMs: 0,
  });
  assert.equal(list.has('1.2.3.4'), true);
  assert.equal(list.has('5.6.7.8'), true);
  assert.equal(list.has('9.9.9.9'), false);
  assert.equal(list.has('# ExitAddress list'), false);
});

test('IPv4 lookups match whole addresses only', () => {
  const list = openTorExitList(listFile('10.0.0.1'), { recheckMs: 0 });
  assert.equal(list.has('10.0.0.1'), true);
  assert.equal(list.has('10.0.0.10'), false);
  assert.equal(list.has('10.0.0'), false);
  assert.equal(list.has(''), false);
  assert.equal(list.has('not an address'), false);
});

test('different spellings of the same IPv6 address match', () => {
  const list = openTorExitList(listFile('2001:db8::1', '2001:0DB8:0000:0000:0000:0000:00ab:0002'), { recheckMs: 0 });
  assert.equal(list.has('2001:0db8:0:0:0:0:0:1'), true);
  assert.equal(list.has('2001:DB8::1'), true);
  assert.equal(list.has('2001:db8::ab:2'), true);
  assert.equal(list.has('2001:db8::2'), false);
  assert.equal(list.has('::1'), false);
});

test('an IPv4-mapped IPv6 query matches the IPv4 entry, and the other way round', () => {
  const list = openTorExitList(listFile('1.2.3.4', '::ffff:5.6.7.8'), { recheckMs: 0 });
  assert.equal(list.has('::ffff:1.2.3.4'), true);
  assert.equal(list.has('::FFFF:102:304'), true);
  assert.equal(list.has('0:0:0:0:0:ffff:1.2.3.4'), true);
  assert.equal(list.has('5.6.7.8'), true);
  assert.equal(list.has('::1.2.3.4'), false, 'IPv4-compatible is not IPv4-mapped');
});

test('a rewritten file is picked up without reopening the list', () => {
  const path = listFile('1.1.1.1');
  const list = openTorExitList(path, { recheckMs: 0 });
  assert.equal(list.has('1.1.1.1'), true);
  writeFileSync(path, '2.2.2.2\n3.3.3.3\n');
  assert.equal(list.has('1.1.1.1'), false);
  assert.equal(list.has('2.2.2.2'), true);
});

test('a file replaced by an atomic rename is picked up', () => {
  const path = listFile('1.1.1.1');
  const list = openTorExitList(path, { recheckMs: 0 });
  assert.equal(list.has('1.1.1.1'), true);
  const temporary = join(folder, 'replacement.tmp');
  writeFileSync(temporary, '4.4.4.4\n');
  renameSync(temporary, path);
  assert.equal(list.has('1.1.1.1'), false);
  assert.equal(list.has('4.4.4.4'), true);
});

test('a file created after opening is picked up, and a deleted file empties the list', () => {
  const path = join(folder, 'later.txt');
  const list = openTorExitList(path, { recheckMs: 0 });
  assert.equal(list.has('7.7.7.7'), false);
  writeFileSync(path, '7.7.7.7\n');
  assert.equal(list.has('7.7.7.7'), true);
  rmSync(path);
  assert.equal(list.has('7.7.7.7'), false);
});

test('a file that cannot be read keeps the previous list', () => {
  const path = listFile('1.1.1.1');
  const list = openTorExitList(path, { recheckMs: 0 });
  assert.equal(list.has('1.1.1.1'), true);
  rmSync(path);
  mkdirSync(path); // stat works, reading fails (EISDIR)
  assert.equal(list.has('1.1.1.1'), true);
  rmSync(path, { recursive: true });
  writeFileSync(path, '8.8.8.8\n');
  assert.equal(list.has('1.1.1.1'), false);
  assert.equal(list.has('8.8.8.8'), true);
});

test('a file with a line that is not an address (e.g. half written) keeps the previous list', () => {
  const path = listFile('1.1.1.1');
  const list = openTorExitList(path, { recheckMs: 0 });
  writeFileSync(path, '2.2.2.2\n3.3.');
  assert.equal(list.has('1.1.1.1'), true);
  assert.equal(list.has('2.2.2.2'), false);
  writeFileSync(path, '2.2.2.2\n3.3.3.3\n');
  assert.equal(list.has('3.3.3.3'), true);
});

test('changes are noticed only after recheckMs has passed', async () => {
  const path = listFile('1.1.1.1');
  const list = openTorExitList(path, { recheckMs: 50 });
  assert.equal(list.has('1.1.1.1'), true);
  writeFileSync(path, '2.2.2.2\n');
  assert.equal(list.has('2.2.2.2'), false, 'still the cached list');
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(list.has('2.2.2.2'), true);
});
