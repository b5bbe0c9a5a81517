import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runAdminInProcess } from '../helpers.ts';

/**
 * The argument checks of board-admin's moderation commands, in-process: every wrong argument
 * exits 2 with one error line (showing the command's usage) and the hint line, before the board
 * is opened. (The real bin/board-admin runs in test/api/moderation-admin.test.ts, one wrong
 * argument per command.)
 */

/** A BOARD_DATA without a board: a command that got past its arguments would exit 1 ("no board") and create nothing. */
const nowhere = join(emptyFolder(), 'no-board');

const wrong: [string[], RegExp][] = [
  [['mod'], /needs add, remove or list/],
  [['mod', 'add'], /missing <username>/],
  [['mod', 'add', 'Anna', 'Bert'], /unexpected argument "Bert"/],
  [['mod', 'list', 'Anna'], /unexpected argument "Anna"/],
  [['remove', '1'], /needs --reason TEXT/],
  [['remove', 'x', '--reason', 'a'], /pid must be a whole number/],
  [['remove', '1', '--reason', ' \n '], /needs --reason TEXT/],
  [['remove', '1', '--reason', 'x'.repeat(501)], /at most 500 characters/],
  [['remove', '1', '--because', 'x'], /--because/],
  [['remove', '--reason', 'x'], /missing <pid>/],
  [['restore-entry'], /missing <pid>/],
  [['restore-entry', '-1'], /-1|pid/],
  [['ban', 'Anna'], /needs --reason TEXT/],
  [['ban', 'Anna', '--reason', 'x', '--days', '0'], /--days must be 1 to 3650/],
  [['ban', 'Anna', '--reason', 'x', '--days', '3651'], /--days must be a whole number up to 3650/],
  [['ban', 'Anna', '--reason', 'x', '--days', 'zwei'], /--days must be a whole number/],
  [['ban', 'Anna', '--reason'], /--reason/],
  [['ban', 'Anna', '--reason', 'x', '--purge=1'], /--purge/],
  [['unban'], /missing <username>/],
  [['avatar-remove', 'Anna'], /needs --reason TEXT/],
  [['reports', 'extra'], /unexpected argument "extra"/],
  [['report-close'], /missing <id>/],
  [['report-close', 'abc'], /report id must be a whole number/],
  [['modlog', '1', '2'], /unexpected argument "2"/],
  [['modlog', '101'], /up to 100/],
  [['modlog', '--all'], /--all/],
];

for (const [args, message] of wrong) {
  test(`board-admin ${args.join(' ')}: exit 2, one error line with the usage and the hint line`, async () => {
    const { code, stdout, stderr } = await runAdminInProcess(args, { BOARD_DATA: nowhere });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    const lines = stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 2, stderr);
    assert.match(lines[0]!, new RegExp(`^board-admin: ${args[0]}: `));
    assert.match(lines[0]!, message);
    assert.match(lines[0]!, new RegExp(`\\(usage: board-admin ${args[0]}\\b.*\\)$`));
    assert.equal(lines[1], `see: board-admin help ${args[0]}`);
    assert.equal(existsSync(nowhere), false, 'nothing created');
  });
}

test('only the table\'s commands are commands: "constructor" is none', async () => {
  const { code, stderr } = await runAdminInProcess(['constructor'], { BOARD_DATA: nowhere });
  assert.equal(code, 2);
  assert.equal(stderr, 'board-admin: unknown command "constructor"\nsee: board-admin help\n');
});
