import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * What tests share lives in test/helpers/ (issue 30): an API test that imports from another test
 * group's folder ties itself to that group's files, and a move there breaks it.
 */
const apiDir = fileURLToPath(new URL('../api/', import.meta.url));

test('API tests import shared code from test/helpers, never from browser/ or resilience/', () => {
  const wrong = readdirSync(apiDir)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(apiDir, file), 'utf8').matchAll(/from '\.\.\/(browser|resilience)\/[^']+'/g)].map(
        (match) => `${file}: ${match[0]}`,
      ),
    );
  assert.deepEqual(wrong, []);
});
