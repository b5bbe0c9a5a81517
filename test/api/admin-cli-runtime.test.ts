import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDb } from '../../lib/db/db.ts';
import { minimumNode } from '../../lib/process/node-version.ts';
import { emptyFolder, runAdminWith, useBoard, type AdminRun } from '../helpers.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/**
 * bin/board-admin as a real server runs it (docs/OPERATIONS.md "Admin CLI"): from cron, whose PATH
 * is /usr/bin:/bin (where Debian's node is too old or missing), on the board's Node all the same;
 * from a folder its user may not enter; and when no Node fits, one line saying what it tried.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const wrapper = join(root, 'bin', 'board-admin');
/** The installed Nodes the wrapper looks for last, as its copies below replace them. */
const installedList = '/usr/local/bin/node /usr/bin/node';

/** Runs a board-admin program with exactly this environment (nothing inherited), in `cwd`. */
function run(program: string, args: string[], env: Record<string, string>, cwd = root): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { env, cwd, timeout: hangBoundMs }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

/** A `node` that notes every call in its log, then runs this Node: which candidate ran, and how. */
function recordingNode(folder: string): { path: string; calls(): string[] } {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'node');
  const log = join(folder, 'calls.log');
  writeFileSync(path, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  return { path, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

/** A `node` of a release older than the board supports, like Debian's: it answers --version and runs nothing. */
function oldNode(folder: string): { path: string; calls(): string[] } {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'node');
  const log = join(folder, 'calls.log');
  writeFileSync(path, `#!/bin/sh\necho "$*" >> '${log}'\n[ "$1" = --version ] && echo v20.20.2\nexit 3\n`, {
    mode: 0o755,
  });
  return { path, calls: () => readFileSync(log, 'utf8').trim().split('\n') };
}

/**
 * A board's code as `npm ci --omit=dev` leaves it on a server: no stamp of make's, no .node/,
 * unless given. The wrapper is a copy (it finds its tree from its own path), the code is linked;
 * the copy looks for the installed Node at `installed` instead of /usr/local/bin and /usr/bin.
 */
function boardTree(options: { installed: string[]; stamp?: string; pinned?: string }): { tree: string; admin: string } {
  const tree = emptyFolder('board-tree-');
  mkdirSync(join(tree, 'bin'));
  mkdirSync(join(tree, 'node_modules'));
  symlinkSync(join(root, 'package.json'), join(tree, 'package.json'));
  symlinkSync(join(root, 'bin', 'board-admin.ts'), join(tree, 'bin', 'board-admin.ts'));
  copyFileSync(join(root, 'bin', 'node-check.sh'), join(tree, 'bin', 'node-check.sh'));
  const text = readFileSync(wrapper, 'utf8');
  assert.ok(text.includes(installedList), 'the wrapper names the installed Nodes');
  const admin = join(tree, 'bin', 'board-admin');
  writeFileSync(admin, text.replace(installedList, options.installed.join(' ')), { mode: 0o755 });
  if (options.stamp) writeFileSync(join(tree, 'node_modules', '.built-for-node-linux-x64-115'), `${options.stamp}\n`);
  if (options.pinned) {
    const version = readFileSync(join(root, '.node-version'), 'utf8').trim();
    copyFileSync(join(root, '.node-version'), join(tree, '.node-version'));
    mkdirSync(join(tree, '.node', version, 'bin'), { recursive: true });
    symlinkSync(options.pinned, join(tree, '.node', version, 'bin', 'node'));
  }
  return { tree, admin };
}

/** A folder on the PATH with the tools the wrapper uses and no `node`: a PATH where none is found. */
function toolsWithoutNode(): string {
  const folder = emptyFolder('board-tools-');
  for (const tool of ['sh', 'readlink']) {
    const found = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
    assert.ok(found, tool);
    symlinkSync(found, join(folder, tool));
  }
  return folder;
}

describe('the Node board-admin runs on', () => {
  const t = useBoard({ users: ['Ada'] });
  const boardEnv = () => ({ BOARD_DATA: t.board.config.dataDir, BOARD_ORIGIN: t.board.config.origin });

  test("from cron's PATH (/usr/bin:/bin), this checkout's board-admin lists its commands and reads the board", async () => {
    const env = { PATH: '/usr/bin:/bin', ...boardEnv() };
    const help = await run(wrapper, ['help'], env);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^board-admin: the board's command line/);
    const reports = await run(wrapper, ['reports', '-q'], env);
    assert.deepEqual(reports, { code: 0, stdout: 'no open reports\n', stderr: '' });
  });

  test("each run keeps V8's compile cache in the board's tree, never the temporary folder; NODE_COMPILE_CACHE moves it", async () => {
    const temporary = emptyFolder('board-admin-tmp-');
    const { tree, admin } = boardTree({ installed: [process.execPath] });
    const env = { PATH: '/usr/bin:/bin', TMPDIR: temporary, ...boardEnv() };
    const first = await run(admin, ['reports', '-q'], env, tree);
    assert.deepEqual(first, { code: 0, stdout: 'no open reports\n', stderr: '' });
    const cache = join(tree, 'node_modules', '.cache', 'board-admin');
    const [release, ...others] = readdirSync(cache);
    assert.deepEqual(others, []);
    const entries = readdirSync(join(cache, release!)).sort();
    assert.ok(entries.length > 20, `${entries.length} entries`); // one per module and form (stripped, compiled)
    assert.deepEqual(readdirSync(temporary), [], 'nothing in the shared temporary folder');
    // Node's own account of the next run: the entry script, stripped and compiled, comes from the cache.
    const traced = await run(admin, ['reports', '-q'], { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, tree);
    assert.equal(traced.code, 0, traced.stderr);
    const entryScript = pathToFileURL(join(root, 'bin', 'board-admin.ts')).href; // the tree links to it
    for (const form of ['StrippedTypeScript', 'ESM'])
      assert.match(
        traced.stderr,
        new RegExp(`reading cache from .* for ${form} ${entryScript}\\.\\.\\.\\[.*\\]\\.\\.\\. success`),
      );
    assert.deepEqual(readdirSync(join(cache, release!)).sort(), entries, 'the second run added nothing');

    const elsewhere = emptyFolder('board-admin-cache-');
    const moved = await run(admin, ['help'], { ...env, NODE_COMPILE_CACHE: elsewhere }, tree);
    assert.equal(moved.code, 0, moved.stderr);
    assert.ok(readdirSync(elsewhere).length > 0, 'the cache went where NODE_COMPILE_CACHE said');
  });

  test('an installed board (no stamp, no .node) with no node on the PATH runs on the Node the guide installs in /usr/local', async () => {
    const installed = recordingNode(join(emptyFolder('board-usr-local-'), 'bin'));
    const { tree, admin } = boardTree({ installed: [installed.path] });
    const env = { PATH: toolsWithoutNode(), ...boardEnv() };
    const reports = await run(admin, ['reports', '-q'], env, tree);
    assert.deepEqual(reports, { code: 0, stdout: 'no open reports\n', stderr: '' });
    assert.ok(
      installed.calls().some((call) => call.endsWith(`${join(tree, 'bin', 'board-admin.ts')} reports -q`)),
      installed.calls().join('\n'),
    );
  });

  test("a stamp naming a Node too old is passed over for the project's pinned .node/<version>, with cron's PATH", async () => {
    const old = oldNode(join(emptyFolder('board-old-node-'), 'bin'));
    const pinned = recordingNode(join(emptyFolder('board-pinned-'), 'bin'));
    const { tree, admin } = boardTree({ installed: [], stamp: old.path, pinned: pinned.path });
    const help = await run(admin, ['help'], { PATH: '/usr/bin:/bin', ...boardEnv() }, tree);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stderr, '');
    assert.match(help.stdout, /^board-admin: the board's command line/);
    assert.deepEqual(old.calls(), ['--version'], 'the old Node is asked its version and never runs board-admin');
    assert.ok(
      pinned.calls().some((call) => call.endsWith('board-admin.ts help')),
      pinned.calls().join('\n'),
    );
  });

  test('when no Node fits: one line naming each one tried and how to fix it, exit 1', async () => {
    const old = oldNode(join(emptyFolder('board-old-node-'), 'bin'));
    const missing = join(emptyFolder('board-no-node-'), 'bin', 'node');
    // The stamp and the PATH name the same old Node: it is tried, and named, once.
    const { tree, admin } = boardTree({ installed: [missing], stamp: old.path });
    const env = { PATH: `${join(old.path, '..')}:${toolsWithoutNode()}`, ...boardEnv() };
    const reports = await run(admin, ['reports'], env, tree);
    assert.deepEqual(reports, {
      code: 1,
      stdout: '',
      stderr: `board-admin: no Node ${minimumNode} or later found (tried ${old.path} (20.20.2), ${missing} (not there)); install Node 24 as docs/OPERATIONS.md "Node" says\n`,
    });
  });
});

/** A new board's data folder: board.db at the current schema, no rows. */
async function emptyBoard(): Promise<string> {
  const data = emptyFolder('board-data-');
  await openDb(join(data, 'board.db')).close();
  return data;
}

/**
 * An installed board is readable by its user; a checkout under `mktemp -d` (mode 0700) is not.
 * Lets every user pass through the checkout's folders (x, not r) while `work` runs, then puts the
 * modes back.
 */
async function withCheckoutReachable<T>(work: () => Promise<T>): Promise<T> {
  const opened: { folder: string; mode: number }[] = [];
  for (let folder = root; folder !== dirname(folder); folder = dirname(folder)) {
    const mode = statSync(folder).mode & 0o7777;
    if (mode & 0o001) continue;
    chmodSync(folder, mode | 0o001);
    opened.push({ folder, mode });
  }
  try {
    return await work();
  } finally {
    for (const { folder, mode } of opened) chmodSync(folder, mode);
  }
}

describe('the working folder', () => {
  const asRoot = process.getuid?.() === 0;
  const nobody = 65534;

  test(
    'from a folder its user may not enter, board-admin works, and every failure is one line',
    {
      skip: asRoot ? false : 'needs root to run it as another user',
    },
    () =>
      withCheckoutReachable(async () => {
        // /root for the user board: a folder owned by root, mode 0700.
        const locked = emptyFolder('board-locked-');
        chmodSync(locked, 0o700);
        const data = await emptyBoard();
        for (const file of ['', 'board.db']) chownSync(join(data, file), nobody, nobody);
        const env = { PATH: '/usr/bin:/bin', BOARD_DATA: data, BOARD_ORIGIN: 'https://board.example.org' };
        const asNobody = (args: string[]) =>
          run(
            'setpriv',
            [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', '--', wrapper, ...args],
            env,
            locked,
          );

        const help = await asNobody(['help']);
        assert.equal(help.code, 0, help.stderr);
        assert.equal(help.stderr, '');
        assert.match(help.stdout, /^board-admin: the board's command line/);

        const added = await asNobody(['user-add', 'Neue Person', '-q']);
        assert.equal(added.code, 0, added.stderr);
        assert.match(added.stdout, /^https:\/\/board\.example\.org\/reset#[\w-]+\n$/);
        const db = openDb(join(data, 'board.db'), { mustExist: true });
        try {
          assert.deepEqual(db.one('SELECT username FROM users'), { username: 'Neue Person' });
        } finally {
          await db.close();
        }

        // A relative file still means the folder it was started in, which this user may not write.
        const backup = await asNobody(['backup', './board-copy.db', '-q']);
        assert.deepEqual(backup, {
          code: 1,
          stdout: '',
          stderr: `board-admin: backup: cannot write in ${locked} (permission denied)\n`,
        });
      }),
  );

  test('a relative file means the folder board-admin was started in', async () => {
    const cwd = emptyFolder('board-cwd-');
    const backup = await runAdminWith(['backup', './board-copy.db', '-q'], { BOARD_DATA: await emptyBoard() }, cwd);
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(existsSync(join(cwd, 'board-copy.db')));
  });
});
