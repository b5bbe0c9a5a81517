import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { minimumNode, nodeTooOld } from '../../lib/process/node-version.ts';

test("the minimum is the one package.json's engines names", () => {
  const engines = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;
  assert.equal(`>=${minimumNode}`, engines);
});

test('a Node older than the minimum gets one line naming both versions', () => {
  assert.equal(
    nodeTooOld('22.12.0', '22.14'),
    'Node 22.12.0 is too old: the board needs Node 22.14 or later (README "Quick start" says how to get one)',
  );
  assert.match(nodeTooOld('20.20.2', '22.14')!, /^Node 20\.20\.2 is too old/);
  assert.match(nodeTooOld('22.13.99', '22.14')!, /too old/);
});

test('the minimum itself and every later line are accepted', () => {
  for (const version of ['22.14.0', '22.22.1', '23.0.0', '24.21.0', '26.12.1', '100.0.0'])
    assert.equal(nodeTooOld(version, '22.14'), undefined, version);
});

test('the Node running the tests is supported', () => {
  assert.equal(nodeTooOld(), undefined);
});

/**
 * bin/board-admin and bin/select-node decide with bin/node-check.sh, in the shell: its minimum is
 * package.json's, and its comparison says what nodeTooOld says (numerically, a missing part is 0).
 */
test("the shell's check (bin/node-check.sh) reads the same minimum and compares versions as nodeTooOld does", () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const versions = [
    '20.20.2',
    '22.9.0',
    '22.13.99',
    '22.14',
    '22.14.0',
    '22.18.0',
    '23.5.1',
    '23.6',
    '24.21.0',
    '100.0.0',
  ];
  const minimums = ['22.14', '22.18', '23.6', '22.9', '100'];
  const script = `. bin/node-check.sh; read_node_minimum package.json; echo "$minimum"
    for m in ${minimums.join(' ')}; do for v in ${versions.join(' ')}; do
      if at_least "$v" "$m"; then echo "$v $m yes"; else echo "$v $m no"; fi; done; done`;
  const [minimum, ...answers] = execFileSync('sh', ['-c', script], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  assert.equal(minimum, minimumNode);
  const expected = minimums.flatMap((m) => versions.map((v) => `${v} ${m} ${nodeTooOld(v, m) ? 'no' : 'yes'}`));
  assert.deepEqual(answers, expected);
});
