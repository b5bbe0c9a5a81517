import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * `make test` runs many test files one after another in one process (.ci/test-lane.ts), so what a
 * file changes for the whole process reaches every file after it (CONTRIBUTING.md "Tests"). The
 * test files and their helpers are held to the rules here; each exception below says why it is safe.
 */
const testDir = fileURLToPath(new URL('..', import.meta.url));

const processWide: { rule: string; pattern: RegExp }[] = [
  {
    rule: 'sets process.env (pass the variables to startBoard or the child process instead)',
    pattern: /process\.env(\.\w+|\[[^\]]+\])?\s*(=(?!=)|\?\?=|\|\|=)|delete process\.env|Object\.assign\(process\.env/,
  },
  { rule: 'adds a process-wide listener', pattern: /process\.(on|once|addListener|prependListener)\(/ },
  { rule: 'changes the working folder or the umask', pattern: /process\.(chdir|umask)\(/ },
  { rule: 'ends or marks the process', pattern: /process\.(exit\(|exitCode\s*=)/ },
  { rule: 'sets a global', pattern: /globalThis\.\w+\s*=(?!=)/ },
  {
    rule: "mocks through node:test's process-wide `mock` (use the test's own t.mock)",
    pattern: /(^|[^.\w])mock\.\w+\(/,
  },
  { rule: 'starts a Chromium of its own (use sharedChromium)', pattern: /(?<!function )\blaunchChromium\(/ },
];

/** Helper lines that do one of these on purpose, and why that is safe when files share a process. */
const allowed: Record<string, RegExp> = {
  // Once per process, at the module's top level: removes every file's folders at exit.
  'helpers/folders.ts': /^process\.on\('exit'/,
  // runAdminInProcess: set for one run and restored in `finally`; no other test of the file runs meanwhile.
  'helpers/admin.ts': /process\.chdir\((cwd|before)\)/,
  // sharedChromium's opener: the one launch every shared Chromium goes through.
  'helpers/browser.ts': /^\(\) => launchChromium\(kind\),$/,
};

function sharingFiles(): string[] {
  return (
    (readdirSync(testDir, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.test.ts') || (file.startsWith(`helpers`) && file.endsWith('.ts')))
      // The drill runs alone (make drill); this file names the patterns in its examples.
      .filter(
        (file) => !file.startsWith(join('drill', '')) && file !== join('unit', 'test-files-share-a-process.test.ts'),
      )
      .sort()
  );
}

test('no test file or helper changes what the whole process shares, except the safe lines named here', () => {
  const files = sharingFiles();
  assert.ok(files.includes(join('api', 'entries.test.ts')) && files.includes(join('helpers', 'board.ts')));
  const found = files.flatMap((file) =>
    readFileSync(join(testDir, file), 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        processWide
          .filter(({ pattern }) => pattern.test(line) && !allowed[file]?.test(line.trim()))
          .map(({ rule }) => `${file}:${index + 1} ${rule}: ${line.trim()}`),
      ),
  );
  assert.deepEqual(found, []);
});

test('each rule finds what it is written for', () => {
  const lines = [
    "process.env.BOARD_DATA = '/tmp/x';",
    "delete process.env['TZ'];",
    "process.on('unhandledRejection', () => {});",
    'process.chdir(dir);',
    'process.exitCode = 1;',
    'globalThis.fetch = fake;',
    "mock.method(console, 'log');",
    'const browser = await launchChromium();',
  ];
  const missed = lines.filter((line) => !processWide.some(({ pattern }) => pattern.test(line)));
  assert.deepEqual(missed, []);
  const harmless = [
    "const dir = process.env.BOARD_DATA ?? '';",
    'if (process.env.X === "1") {}',
    't.mock.method(a, "b");',
  ];
  assert.deepEqual(
    harmless.filter((line) => processWide.some(({ pattern }) => pattern.test(line))),
    [],
  );
});
