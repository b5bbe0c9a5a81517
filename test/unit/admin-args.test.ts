import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findCommand, runCommand, type OpenBoard } from '../../lib/admin/cli.ts';
import { moderationCommands } from '../../lib/admin/moderation.ts';
import { reportCommands } from '../../lib/admin/reports.ts';

/**
 * The argument checks of board-admin's moderation commands, in-process: every wrong argument
 * exits 2 with one error line and the usage line, before the board is opened. (The real
 * bin/board-admin runs in test/api/moderation-admin.test.ts, one wrong argument per command.)
 */

const neverOpened: OpenBoard = () => {
  throw new Error('the board was opened for a wrong argument');
};

async function runCapturingStderr(args: string[]): Promise<{ code: number; stderr: string[] }> {
  const [name, ...rest] = args;
  const command = findCommand(name, moderationCommands, reportCommands);
  assert.ok(command, `${name} is a command`);
  const stderr: string[] = [];
  const original = console.error;
  console.error = (line: string) => stderr.push(line);
  try {
    return { code: await runCommand(name!, command, rest, neverOpened), stderr };
  } finally {
    console.error = original;
  }
}

const wrong: [string[], RegExp][] = [
  [['mod'], /needs add, remove or list/],
  [['mod', 'add'], /needs exactly 1 word/],
  [['mod', 'add', 'Anna', 'Bert'], /needs exactly 1 word/],
  [['mod', 'list', 'Anna'], /takes no words/],
  [['remove', '1'], /needs --reason TEXT/],
  [['remove', 'x', '--reason', 'a'], /pid must be a whole number/],
  [['remove', '1', '--reason', ' \n '], /needs --reason TEXT/],
  [['remove', '1', '--reason', 'x'.repeat(501)], /at most 500 characters/],
  [['remove', '1', '--because', 'x'], /--because/],
  [['remove', '--reason', 'x'], /needs exactly 1 word/],
  [['restore-entry'], /needs exactly 1 word/],
  [['restore-entry', '-1'], /-1|pid/],
  [['ban', 'Anna'], /needs --reason TEXT/],
  [['ban', 'Anna', '--reason', 'x', '--days', '0'], /--days must be 1 to 3650/],
  [['ban', 'Anna', '--reason', 'x', '--days', '3651'], /--days must be a whole number up to 3650/],
  [['ban', 'Anna', '--reason', 'x', '--days', 'zwei'], /--days must be a whole number/],
  [['ban', 'Anna', '--reason'], /--reason/],
  [['ban', 'Anna', '--reason', 'x', '--purge=1'], /--purge/],
  [['unban'], /needs exactly 1 word/],
  [['avatar-remove', 'Anna'], /needs --reason TEXT/],
  [['reports', 'extra'], /takes no words/],
  [['report-close'], /needs exactly 1 word/],
  [['report-close', 'abc'], /report id must be a whole number/],
  [['modlog', '1', '2'], /at most one page number/],
  [['modlog', '101'], /up to 100/],
  [['modlog', '--all'], /--all/],
];

for (const [args, message] of wrong) {
  test(`board-admin ${args.join(' ')}: exit 2, one error line and the usage line`, async () => {
    const { code, stderr } = await runCapturingStderr(args);
    assert.equal(code, 2);
    assert.equal(stderr.length, 2, stderr.join('\n'));
    assert.match(stderr[0]!, new RegExp(`^board-admin: ${args[0]}: `));
    assert.match(stderr[0]!, message);
    assert.match(stderr[1]!, new RegExp(`^usage: board-admin ${args[0]}\\b`));
  });
}

test('only own keys are commands: "constructor" is none', () => {
  assert.equal(findCommand('constructor', moderationCommands, reportCommands), undefined);
  assert.equal(findCommand(undefined, moderationCommands), undefined);
});
