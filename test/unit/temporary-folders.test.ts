import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { leftoversIn } from '../../.ci/test-leftovers.ts';
import { emptyFolder } from '../helpers.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

test('a test file that fails still removes every temporary folder it made', async () => {
  const tmp = emptyFolder('board-run-');
  const env: Record<string, string> = {};
  // Without the runner's own variable the child runs its file as a test run of its own, not as part of this one.
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && name !== 'TEST_SCREENSHOTS' && name !== 'NODE_TEST_CONTEXT') env[name] = value;
  const run = await new Promise<{ code: number | null; output: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', 'test/fixtures/failing-suite.ts'],
      { cwd: projectRoot, env: { ...env, TMPDIR: tmp }, timeout: hangBoundMs },
      (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, output: stdout + stderr }),
    ),
  );
  assert.equal(run.code, 1, run.output);
  assert.match(run.output, /this suite fails on purpose/);
  assert.deepEqual(leftoversIn(tmp), []);
});

test("make test's check names what is left, but not the compile caches of tsx and Node", () => {
  const tmp = emptyFolder('board-run-');
  for (const name of ['tsx-0', 'node-compile-cache', 'board-screens-abc123', 'board-png-def456'])
    mkdirSync(join(tmp, name));
  assert.deepEqual(leftoversIn(tmp), ['board-png-def456', 'board-screens-abc123']);
});
