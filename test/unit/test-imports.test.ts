import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * What tests share lives in test/helpers/ (issue 30): a test that imports from another test
 * group's folder ties itself to that group's files, and a move there breaks it.
 */
const testDir = fileURLToPath(new URL('..', import.meta.url));
const groups = readdirSync(testDir).filter(
  (name) => statSync(join(testDir, name)).isDirectory() && name !== 'helpers' && name !== 'fixtures',
);

test('each test group imports shared code from test/helpers, never from another group', () => {
  const wrong = groups.flatMap((group) =>
    readdirSync(join(testDir, group))
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(join(testDir, group, file), 'utf8').matchAll(/from '\.\.\/([\w-]+)\/[^']+'/g)]
          .filter((match) => match[1] !== 'helpers' && groups.includes(match[1]!))
          .map((match) => `${group}/${file}: ${match[0]}`),
      ),
  );
  assert.ok(groups.includes('api') && groups.includes('browser'), groups.join(', '));
  assert.deepEqual(wrong, []);
});

test('the test folder holds the groups, test/helpers/ and its one entry point test/helpers.ts', () => {
  const loose = readdirSync(testDir).filter((name) => name.endsWith('.ts') && name !== 'helpers.ts');
  assert.deepEqual(loose, []);
});

test('every temporary folder of a test comes from test/helpers/folders.ts, which removes it however the test ends', () => {
  const files = (readdirSync(testDir, { recursive: true }) as string[]).filter(
    (file) => file.endsWith('.ts') && file !== join('helpers', 'folders.ts'),
  );
  const own = files.filter((file) => /\bmkdtemp(Sync)?\(/.test(readFileSync(join(testDir, file), 'utf8')));
  assert.ok(files.includes(join('helpers', 'board.ts')), files.join(', '));
  assert.deepEqual(own, []);
});
