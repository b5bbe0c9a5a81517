import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pointInTime } from '../../bin/commands/args.ts';
import { UsageError } from '../../bin/cli.ts';
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
  [
    ['modlog', '--since', 'gestern'],
    /--since must be a date \(2026-11-21\), a UTC time .* or a time ago \(90m, 2h, 3d\)/,
  ],
  [['modlog', '--until', '2026-02-30'], /--until must be a date/],
  [['modlog', '--since', '1h', '--until', '2h'], /--since must be before --until/],
  [['modlog', '3', '--by', 'Anna'], /a page or --by\/--since\/--until, not both/],
  [['modlog', '--by'], /--by/],
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

test('a point in time for modlog --since/--until: a UTC date or time, with Z or an offset, or a time ago', () => {
  const now = 1_795_000_000;
  const utc = (...parts: [number, number, number, number?, number?, number?]) =>
    Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0, parts[5] ?? 0) / 1000;
  const cases: [string, number][] = [
    ['2026-11-21', utc(2026, 11, 21)],
    ['2026-11-21 06:30', utc(2026, 11, 21, 6, 30)],
    ['2026-11-21T06:30:15', utc(2026, 11, 21, 6, 30, 15)],
    ['2026-11-21T06:30:15Z', utc(2026, 11, 21, 6, 30, 15)],
    ['2026-11-21T06:30+01:00', utc(2026, 11, 21, 5, 30)],
    ['2026-11-21 06:30-05:30', utc(2026, 11, 21, 12, 0)],
    ['2024-02-29', utc(2024, 2, 29)],
    ['90m', now - 90 * 60],
    ['2h', now - 2 * 3600],
    [' 3d ', now - 3 * 86_400],
  ];
  for (const [raw, expected] of cases) assert.equal(pointInTime(raw, '--since', now), expected, raw);
  for (const raw of [
    '',
    'gestern',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-11-21 24:00',
    '2026-11-21 06:60',
    '2026-11-21T06',
    '2 h',
    '5y',
    '-2h',
    '1795000000',
    '2026-11-21T06:30+1',
  ]) {
    assert.throws(
      () => pointInTime(raw, '--until', now),
      (err: Error) => err instanceof UsageError && /^--until must be a date/.test(err.message),
      raw,
    );
  }
});
