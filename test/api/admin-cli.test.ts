import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadCommand, type ListedCommand } from '../../bin/cli.ts';
import { commands as listed } from '../../bin/commands/index.ts';
import {
  emptyFolder,
  password,
  post,
  runAdmin,
  runAdminHere,
  runAdminInProcess as runInProcess,
  runAdminWith,
  useBoard,
  visitor,
} from '../helpers.ts';

/** Every command with its code: the walks below need each one's arguments and whether it needs a board. */
const commands = await Promise.all(listed.map(loadCommand));

/** bin/board-admin as an operator meets it: help everywhere, short argument errors, and it never creates a board. */
const boardCommands = commands.filter((c) => c.needsBoard);
const freeCommands = commands
  .filter((c) => !c.needsBoard)
  .map((c) => c.name)
  .sort();

/** Arguments of the right count and form for any command: ids and names alike accept "1"; a required option or a verb is named here. */
const needMore: Record<string, string[]> = {
  mod: ['add', '1'],
  remove: ['1', '--reason', 'Spam'],
  ban: ['1', '--reason', 'Spam'],
  'avatar-remove': ['1', '--reason', 'Spam'],
  'user-add': ['Neue Person'], // a name is checked for its form before the board is opened
  'reject-between': ['2h', '0m'], // times, checked before the board is opened
  federation: ['allow', 'social.example'], // the action, checked before the board is opened
};
const someArgs = (name: string) =>
  needMore[name] ?? Array<string>(commands.find((c) => c.name === name)!.args[0]).fill('1');

describe('board-admin help', () => {
  for (const args of [['help'], ['-h'], ['--help']]) {
    test(`"board-admin ${args.join(' ')}" lists every command on stdout, exit 0`, async () => {
      const run = await runInProcess(args);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '');
      for (const command of commands)
        assert.match(
          run.stdout,
          new RegExp(`^  ${command.name}\\b.*${command.summary.slice(0, 20).replace(/[()[\]]/g, '\\$&')}`, 'm'),
        );
    });
  }

  test("help <command>, <command> -h and <command> --help print that command's usage and details, for every command", async () => {
    for (const command of commands) {
      for (const args of [
        ['help', command.name],
        [command.name, '-h'],
        [command.name, '--help'],
      ]) {
        const run = await runInProcess(args);
        assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
        assert.equal(run.stderr, '');
        assert.ok(run.stdout.startsWith(`usage: board-admin ${command.name}`), run.stdout);
        assert.ok(run.stdout.includes(command.help.trim().split('\n')[0]!), `${args.join(' ')} shows the details`);
      }
    }
  });

  test('the real program: -h after a command prints its help, exit 0, nothing on stderr', async () => {
    const run = await runAdminWith(['backup', '-h']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /^usage: board-admin backup \[--with-media\] \[--force\] <file>\n/);
  });

  test("the walk's extra arguments name real commands", () => {
    for (const name of Object.keys(needMore))
      assert.ok(
        commands.some((c) => c.name === name),
        name,
      );
  });

  test('only help, restore, verify and tor-refresh work without a board', () => {
    assert.deepEqual(
      freeCommands,
      ['restore', 'tor-refresh', 'verify'].filter((name) => commands.some((c) => c.name === name)),
    );
  });
});

describe('argument errors', () => {
  const cases: [string[], RegExp, string][] = [
    [['frobnicate'], /^board-admin: unknown command "frobnicate"$/, 'see: board-admin help'],
    [[], /^board-admin: no command given$/, 'see: board-admin help'],
    [['help', 'frobnicate'], /^board-admin: help: unknown command "frobnicate"$/, 'see: board-admin help'],
    [
      ['reset-link'],
      /^board-admin: reset-link: missing <username> \(usage: board-admin reset-link <username>\)$/,
      'see: board-admin help reset-link',
    ],
    [['reset-link', 'a', 'b'], /^board-admin: reset-link: unexpected argument "b"/, 'see: board-admin help reset-link'],
    [
      ['report-close', 'abc'],
      /^board-admin: report-close: the report id must be a whole number \(usage: board-admin report-close <id>\)$/,
      'see: board-admin help report-close',
    ],
    [
      ['previews', '--everything'],
      /^board-admin: previews: unknown option --everything \(usage: board-admin previews \[--all\]\)$/,
      'see: board-admin help previews',
    ],
    [
      ['reports', '-x'],
      /^board-admin: reports: unknown option -x \(usage: board-admin reports\)$/,
      'see: board-admin help reports',
    ],
  ];
  for (const [args, error, hint] of cases) {
    test(`"board-admin ${args.join(' ')}": one error line, one hint line, exit 2`, async () => {
      const run = await runInProcess(args);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, '');
      const lines = run.stderr.split('\n').filter(Boolean);
      assert.equal(lines.length, 2, run.stderr);
      assert.match(lines[0]!, error);
      assert.equal(lines[1], hint);
    });
  }

  test('the real program: a wrong argument in a folder without a board is exit 2 with two lines, and creates nothing', async () => {
    const cwd = emptyFolder();
    const run = await runAdminWith(['report-close', 'abc'], {}, cwd);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'board-admin: report-close: the report id must be a whole number (usage: board-admin report-close <id>)\nsee: board-admin help report-close\n',
    );
    assert.deepEqual(readdirSync(cwd), []);
  });
});

describe('a folder without a board', () => {
  // In this process, in the empty folder (a real process per command cost half a minute); the
  // real program meets a folder without a board in the next test and in 'the real program' above.
  test('every command that needs a board says where it looked and how to point BOARD_DATA, exit 1, and creates nothing (BOARD_DATA unset)', async () => {
    const cwd = emptyFolder();
    for (const command of boardCommands) {
      const run = await runInProcess([command.name, ...someArgs(command.name)], {}, cwd);
      assert.equal(run.code, 1, `${command.name}: ${run.stderr}`);
      assert.equal(run.stdout, '', command.name);
      assert.equal(
        run.stderr,
        `board-admin: ${command.name}: no board in ${join(cwd, 'data')} (BOARD_DATA is not set, so ./data here): no board.db there; name the board's folder, e.g. BOARD_DATA=/var/lib/board board-admin ${command.name}${command.usage ? ' ...' : ''}\n`,
      );
      assert.deepEqual(readdirSync(cwd), [], `${command.name} created nothing`);
    }
  });

  test('BOARD_DATA naming an empty or a missing folder: exit 1 naming it, nothing created inside', async () => {
    const empty = emptyFolder();
    const missing = join(emptyFolder(), 'not-there');
    for (const folder of [empty, missing]) {
      const run = await runAdminWith(['reports'], { BOARD_DATA: folder });
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`^board-admin: reports: no board in ${folder} \\(BOARD_DATA=${folder}\\)`));
    }
    assert.deepEqual(readdirSync(empty), []);
    assert.equal(existsSync(missing), false);
  });
});

describe('naming the database', () => {
  const t = useBoard({ users: ['Ada'] });
  // The real program names its database in the first test; the others run in this process (runAdminHere).

  test('a command that reads or writes the board names its database on stderr in one line', async () => {
    const run = await runAdmin(t.board, ['reports']);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, `board-admin: database ${t.board.config.dbPath}\n`);
    assert.equal(run.stdout, 'no open reports\n');
  });

  test('--quiet or -q, before or after the command, leaves that line out', async () => {
    for (const args of [
      ['--quiet', 'reports'],
      ['reports', '-q'],
      ['reset-link', 'Ada', '--quiet'],
    ]) {
      const run = await runAdminHere(t.board, args);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '', args.join(' '));
    }
  });

  test('a failure is one line naming the command', async () => {
    const run = await runAdminHere(t.board, ['report-close', '999', '-q']);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'board-admin: report-close: no open report #999\n');
  });
});

describe('verify beside GET /api/stats', () => {
  // The surge gate at two accounts (BOARD_LIMITS stays 1: 0 would turn it off): the third registration waits for approval.
  const t = useBoard({ env: { BOARD_REGISTRATION_SURGE: '2' }, members: ['Anna'], moderators: ['Mona'] });

  test('verify names the live entries and admitted users apart: the numbers /api/stats gives', async () => {
    const { Anna, Mona } = t.members;
    await post(Anna, 'bleibt');
    const deleted = await post(Anna, 'wird gelöscht');
    const removed = await post(Anna, 'wird entfernt');
    assert.equal((await Anna.post(`/api/entry/${deleted}/delete`)).status, 200);
    assert.equal((await Mona.post(`/api/mod/entry/${removed}/remove`, { reason: 'Werbung' })).status, 200);
    const applicant = await visitor(t.board).post('/api/auth/newuser', {
      user: 'Neu Ling',
      pass1: password,
      pass2: password,
    });
    assert.equal(applicant.status, 202, applicant.text);
    assert.deepEqual((await visitor(t.board).get('/api/stats')).body, { users: 2, entries: 1 });

    const run = await runAdminHere(t.board, ['verify', '--data']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /, integrity ok, 3 entries \(1 live, 2 deleted or removed\), 3 users \(2 admitted, 1 applying or rejected\), /,
    );
  });
});

describe('an unexpected failure', () => {
  test('an unexpected error in a command (a bug) is one line naming the command and where it happened, exit 1', async () => {
    const { runCli } = await import('../../bin/cli.ts');
    const broken: ListedCommand = {
      name: 'broken',
      summary: 'fails',
      usage: '',
      load: async () => ({
        help: 'fails',
        needsBoard: false,
        args: [0, 0],
        run() {
          return (undefined as unknown as { length: number }).length;
        },
      }),
    };
    let stderr = '';
    const code = await runCli(
      [broken],
      ['broken'],
      {},
      {
        out: { write: () => true },
        err: { write: (text: string) => (stderr += text) },
      },
    );
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^board-admin: broken: unexpected TypeError: Cannot read properties of undefined \(reading 'length'\) \(at test\/api\/admin-cli\.test\.ts:\d+:\d+\)\n$/,
    );
  });
});

describe('settings', () => {
  const t = useBoard({ users: ['Ada'] });

  test('a variable that is no setting: the real program refuses in one line naming the nearest setting, exit 1, and changes nothing', async () => {
    const run = await runAdmin(t.board, ['registration', 'closed'], { BOARD_REGISTRATON: 'invite' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'board-admin: BOARD_REGISTRATON is not a setting; did you mean BOARD_REGISTRATION?\n');
    const after = await runAdminHere(t.board, ['registration', '-q']);
    assert.match(after.stdout, /^open \(set by config/, 'the mode stayed');
  });

  test('help needs no settings: it lists the commands whatever the environment holds', async () => {
    const run = await runInProcess(['help'], { BORAD_ORIGIN: 'https://board.example.org' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ {2}reset-link <username>/m);
  });
});
