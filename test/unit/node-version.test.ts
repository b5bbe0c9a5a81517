import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
