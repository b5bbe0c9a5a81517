import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { activeBanUntil } from '../../lib/accounts/bans.ts';
import { findUserByName } from '../../lib/accounts/users.ts';
import {
  entryRow,
  imageFixture,
  limitsOff,
  makeModerator,
  moderator,
  modlogRows,
  post,
  runAdmin,
  runAdminHere,
  uidOf,
  useBoard,
  visitor,
  type AdminRun,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/OPERATIONS.md "Moderating the board": the administrator's commands against the board's data
 * folder. Exit codes: 0 done, 1 failed, 2 wrong arguments (one error line showing the command's
 * usage and the hint line "see: board-admin help <command>" on stderr). Each test runs its first
 * command as the real bin/board-admin (`real`); the rest run its runCli in this process, which
 * opens the database the same way without a process's start-up.
 */

async function admin(
  board: TestBoard,
  args: string[],
  code = 0,
  how: (board: TestBoard, args: string[]) => Promise<AdminRun> = runAdminHere,
) {
  const run = await how(board, args);
  assert.equal(run.code, code, `${args.join(' ')}: exit ${run.code}\n${run.stdout}${run.stderr}`);
  return run;
}

/** The command as the real bin/board-admin process. */
const real = (board: TestBoard, args: string[], code = 0) => admin(board, args, code, runAdmin);

function userRow(board: TestBoard, name: string) {
  return findUserByName(board.app.services.db, name)!;
}

describe('board-admin moderation commands', () => {
  const t = useBoard({ members: ['Anna', 'Bert', 'Carl'] });

  test('mod add, mod list, mod remove: the role, logged for the administrator only; exit 1 when nothing changes', async () => {
    assert.equal((await real(t.board, ['mod', 'add', 'anna'])).stdout, 'Anna is now a moderator\n');
    assert.equal(
      (await t.members.Anna.get('/api/user/info')).body.role,
      'moderator',
      'at once, for the running server',
    );
    const [again, list] = await Promise.all([
      admin(t.board, ['mod', 'add', 'Anna'], 1),
      admin(t.board, ['mod', 'list']),
    ]);
    assert.match(again.stderr, /Anna is a moderator already/);
    assert.equal(list.stdout, 'Anna\n');
    assert.equal((await admin(t.board, ['mod', 'remove', 'Anna'])).stdout, 'Anna is no longer a moderator\n');
    assert.equal('role' in (await t.members.Anna.get('/api/user/info')).body, false);
    assert.deepEqual(
      modlogRows(t.board).map((r) => [r.action, r.public, r.moderator_uid]),
      [
        ['mod_remove', 0, 0],
        ['mod_add', 0, 0],
      ],
    );
    assert.deepEqual((await visitor(t.board).get('/api/modlog/0')).body, [], 'role changes stay out of the public log');
  });

  test('remove and restore-entry: the entry goes and comes back; exit 1 when there is nothing to do', async () => {
    const pid = await post(t.members.Bert, 'vom Admin entfernt');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'Spam' });
    const run = await real(t.board, ['remove', String(pid), '--reason', 'Spam, mehrfach']);
    assert.equal(run.stdout, `removed entry ${pid} (${t.board.config.origin}/e/${pid})\n`);
    const thread = (await visitor(t.board).get(`/api/entry/${pid}/thread`)).body;
    assert.deepEqual(
      [thread.entry.removed, thread.entry.removed_reason, thread.entry.content],
      [1, 'Spam, mehrfach', ''],
      'the server shows it at once',
    );
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM reports WHERE pid = ? AND closed_at = 0', pid), 0);
    assert.match(
      (await admin(t.board, ['remove', String(pid), '--reason', 'nochmal'], 1)).stderr,
      new RegExp(`no live entry ${pid}`),
    );

    assert.equal((await admin(t.board, ['restore-entry', String(pid)])).stdout, `restored entry ${pid}\n`);
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.content, 'vom Admin entfernt');
    assert.match((await admin(t.board, ['restore-entry', String(pid)], 1)).stderr, /is not removed/);
    assert.deepEqual(
      modlogRows(t.board)
        .slice(0, 2)
        .map((r) => [r.action, r.pid, r.moderator_uid]),
      [
        ['restore', pid, 0],
        ['remove', pid, 0],
      ],
    );
  });

  test('ban ends the sessions; --days sets the end; --purge removes the entries; banning a moderator ends the role', async () => {
    const pid = await post(t.members.Carl, 'Carl schreibt');
    makeModerator(t.board, 'Carl');
    const run = await real(t.board, ['ban', 'Carl', '--reason', 'Missbrauch', '--days', '3', '--purge']);
    assert.match(
      run.stdout,
      /^banned Carl until \d{4}-\d\d-\d\d \d\d:\d\d UTC; Carl is no longer a moderator; removed 1 entries\n$/,
    );
    const carl = userRow(t.board, 'Carl');
    assert.equal(carl.role, '');
    assert.ok(Math.abs(carl.banned_until - (Math.floor(Date.now() / 1000) + 3 * 86_400)) < 60, 'three days from now');
    assert.equal(entryRow(t.board, pid)!.removed, 1);
    assert.equal(
      t.board.app.services.db.value('SELECT count(*) FROM sessions WHERE uid = ?', uidOf(t.board, 'Carl')),
      0,
    );
    assert.equal((await t.members.Carl.get('/api/user/info')).status, 401);

    assert.equal((await admin(t.board, ['unban', 'carl'])).stdout, 'lifted the ban of Carl\n');
    const [notBanned, unknown] = await Promise.all([
      admin(t.board, ['unban', 'Carl'], 1),
      admin(t.board, ['ban', 'Niemand', '--reason', 'x'], 1),
    ]);
    assert.match(notBanned.stderr, /Carl is not banned/);
    assert.match(unknown.stderr, /no user named "Niemand"/);
    assert.equal((await admin(t.board, ['ban', 'Carl', '--reason=für immer'])).stdout, 'banned Carl permanently\n');
    assert.equal(activeBanUntil(userRow(t.board, 'Carl'), 0), -1);
  });

  test('avatar-remove deletes the avatar; without one exit 1', async () => {
    const upload = await t.members.Bert.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    assert.equal(upload.status, 200);
    assert.equal(
      (await real(t.board, ['avatar-remove', 'Bert', '--reason', 'unpassend'])).stdout,
      'removed the avatar of Bert\n',
    );
    assert.equal((await visitor(t.board).get('/api/u/Bert/info')).body.avatar, '');
    assert.match(
      (await admin(t.board, ['avatar-remove', 'Bert', '--reason', 'unpassend'], 1)).stderr,
      /Bert has no avatar/,
    );
  });

  test('modlog shows every action with who did it: a moderator\'s name or "admin"', async () => {
    const mia = await moderator(t.board, 'Mia');
    const pid = await post(t.members.Bert, 'von Mia entfernt');
    assert.equal((await mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Off-Topic' })).status, 200);
    const [run, page1] = await Promise.all([real(t.board, ['modlog']), admin(t.board, ['modlog', '1'])]);
    const lines = run.stdout.trim().split('\n');
    assert.match(
      lines[0]!,
      new RegExp(`^#\\d+  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  remove entry ${pid} \\(Bert\\)  by Mia  "Off-Topic"$`),
    );
    assert.match(lines[1]!, / {2}mod_add Mia {2}by admin$/);
    assert.ok(
      lines.some((l) => / {2}ban Carl permanently {2}by admin {2}"für immer"$/.test(l)),
      run.stdout,
    );
    assert.ok(
      lines.some((l) => / avatar_remove Bert {2}by admin {2}"unpassend"$/.test(l)),
      run.stdout,
    );
    assert.equal(page1.stdout, 'nothing on page 1\n');
  });

  test("wrong arguments exit 2 with one error line showing the command's usage and the hint line, and change nothing", async () => {
    const cases: [string[], RegExp][] = [
      [['mod', 'promote', 'Anna'], /needs add, remove or list/],
      [['remove', '1'], /needs --reason TEXT/],
      [['restore-entry'], /usage: board-admin restore-entry <pid>/],
      [['ban', 'Anna', '--reason', 'x', '--days', '0'], /--days must be 1 to 3650/],
      [['unban'], /usage: board-admin unban <username>/],
      [['avatar-remove', 'Anna'], /needs --reason TEXT/],
      [['report-close', 'abc'], /report id must be a whole number/],
      [['reports', 'extra'], /usage: board-admin reports/],
      [['modlog', '1', '2'], /unexpected argument "2"/],
    ];
    // In this process: an argument error is found before the board is opened (a real process each cost 2 s).
    for (const [args, stderr] of cases) {
      const run = await admin(t.board, args, 2);
      assert.match(run.stderr, stderr, args.join(' '));
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 2, `${args.join(' ')}: two lines, not the whole usage\n${run.stderr}`);
      assert.match(lines[0]!, new RegExp(`\\(usage: board-admin ${args[0]}\\b.*\\)$`), args.join(' '));
      assert.equal(lines[1], `see: board-admin help ${args[0]}`);
      assert.equal(run.stdout, '');
    }
    assert.equal(userRow(t.board, 'Anna').banned_until, 0, 'nothing happened');
  });

  test('help lists every moderation command', async () => {
    const { stdout } = await admin(t.board, ['help']);
    for (const command of [
      'remove <pid> --reason TEXT',
      'restore-entry <pid>',
      'ban <username> --reason TEXT [--days N] [--purge]',
      'unban <username>',
      'avatar-remove <username> --reason TEXT',
      'mod add|remove <username>',
      'mod list',
      'modlog [page]',
    ]) {
      assert.ok(stdout.includes(command), command);
    }
  });
});

describe('board-admin reports and report-close', () => {
  const t = useBoard({ members: ['Anna', 'Bert'] });

  test("reports shows the reporter's name, the entry's address and the full reason", async () => {
    const pid = await post(t.members.Anna, 'gemeldet');
    const reason = `Ein sehr langer Grund: ${'bla '.repeat(100)}Ende.`.trim();
    await t.members.Bert.post(`/api/entry/${pid}/report`, { reason });
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'anonym' });
    const { stdout } = await real(t.board, ['reports']);
    assert.match(stdout, new RegExp(`#\\d+  entry ${pid} \\(2 open\\)  \\S+ \\S+  Bert\\n`));
    assert.match(stdout, new RegExp(`#\\d+  entry ${pid} \\(2 open\\)  \\S+ \\S+  anonymous\\n`));
    assert.ok(stdout.includes(`    address: ${t.board.config.origin}/e/${pid}\n`), stdout);
    assert.ok(stdout.includes(JSON.stringify(reason)), 'the full reason');
  });

  test('report-close closes one report as dismissed and writes a public log row by "admin"', async () => {
    const pid = await post(t.members.Anna, 'einzeln geschlossen');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'x' });
    const { db } = t.board.app.services;
    const id = db.value('SELECT id FROM reports WHERE pid = ?', pid);
    assert.equal((await real(t.board, ['report-close', String(id)])).stdout, `closed report #${id}\n`);
    const logId = db.one<{ id: number }>("SELECT id FROM modlog WHERE action = 'dismiss' AND pid = ?", pid)!.id;
    assert.deepEqual(db.one('SELECT closed_action, closed_log_id FROM reports WHERE id = ?', id), {
      closed_action: 'dismiss',
      closed_log_id: logId,
    });
    const [row] = (await visitor(t.board).get('/api/modlog/0')).body;
    assert.deepEqual([row.action, row.pid, row.username], ['dismiss', pid, 'Anna']);
    assert.match((await admin(t.board, ['report-close', String(id)], 1)).stderr, new RegExp(`no open report #${id}`));
  });
});

describe('board-admin modlog --by NAME --since … --until …', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Spam'], moderators: ['Mia', 'Moritz'] });
  /** bin/board-admin's runCli in this process (the real program runs in the suites above). */
  const cli = (args: string[], code = 0) => admin(t.board, args, code);

  test("lists exactly one moderator's actions in the range, oldest first, with the commands that undo them", async () => {
    const { Anna, Spam, Mia, Moritz } = t.members;
    const realNow = Math.floor(Date.now() / 1000);
    const [t0, t1, t2] = [realNow - 3 * 3600, realNow - 2 * 3600, realNow - 1800];
    const remove = async (by: Client, pid: number) =>
      assert.equal((await by.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    t.board.clock.set(t0);
    const [a, b, c, f, g] = [
      await post(Anna, 'a'),
      await post(Anna, 'b'),
      await post(Anna, 'c'),
      await post(Anna, 'f'),
      await post(Anna, 'g'),
    ];
    const [d, e] = [await post(Spam, 'd'), await post(Spam, 'e')];
    await remove(Mia, a);
    await remove(Moritz, b);
    t.board.clock.set(t1);
    await remove(Mia, c);
    assert.equal((await Mia.post('/api/mod/user/Spam/ban', { reason: 'Spam', purge: '1' })).status, 200);
    await remove(Moritz, f);
    t.board.clock.set(t2);
    await remove(Mia, g);

    const id = (action: string, pid = 0) =>
      t.board.app.services.db.one<{ id: number }>('SELECT id FROM modlog WHERE action = ? AND pid = ?', action, pid)!
        .id;
    const at = (time: number) => new Date(time * 1000).toISOString().slice(0, 16).replace('T', ' ');
    const removed = (pid: number, author: string, by: string, time: number) =>
      `#${id('remove', pid)}  ${at(time)}  remove entry ${pid} (${author})  by ${by}  "Spam"  undo: board-admin restore-entry ${pid}`;
    const banned = `#${id('ban')}  ${at(t1)}  ban Spam permanently  by Mia  "Spam"  undo: board-admin unban "Spam"`;
    const list = async (...args: string[]) => (await cli(['modlog', ...args])).stdout.trimEnd().split('\n');

    const miasHour = await list('--by', 'mia', '--since', at(t1), '--until', at(t2));
    assert.deepEqual(miasHour, [
      removed(c, 'Anna', 'Mia', t1),
      banned,
      removed(d, 'Spam', 'Mia', t1),
      removed(e, 'Spam', 'Mia', t1),
    ]);
    assert.deepEqual(await list('--by', 'Mia', '--since', '1h'), [removed(g, 'Anna', 'Mia', t2)]);
    assert.deepEqual(await list('--by', 'Moritz'), [
      removed(b, 'Anna', 'Moritz', t0),
      removed(f, 'Anna', 'Moritz', t1),
    ]);
    assert.deepEqual(await list('--since', at(t1), '--until', at(t2)), [
      removed(c, 'Anna', 'Mia', t1),
      banned,
      removed(d, 'Spam', 'Mia', t1),
      removed(e, 'Spam', 'Mia', t1),
      removed(f, 'Anna', 'Moritz', t1),
    ]);
    assert.deepEqual(await list('--by', 'Mia', '--until', at(t0)), ['no moderation actions in that range']);

    // The administrator runs what the list says: Mia's hour is undone.
    for (const line of miasHour) {
      const [command, arg] = line.split('undo: board-admin ')[1]!.split(' ');
      await cli([command!, arg!.startsWith('"') ? JSON.parse(arg!) : arg!]);
    }
    for (const pid of [c, d, e]) assert.equal(entryRow(t.board, pid)!.removed, 0);
    assert.equal(entryRow(t.board, a)!.removed, 1, 'outside the range');
    assert.equal(userRow(t.board, 'Spam').banned_until, 0);
  });

  test('an unknown name is exit 1; a time that is none, an empty range, or a page with a range is exit 2', async () => {
    assert.match((await cli(['modlog', '--by', 'Niemand'], 1)).stderr, /no user named "Niemand"/);
    for (const args of [
      ['--since', 'gestern'],
      ['--until', '2026-02-30'],
      ['--since', '2h', '--until', '3h'],
      ['2', '--by', 'Mia'],
      ['--by', ''],
    ]) {
      const run = await cli(['modlog', ...args], 2);
      assert.match(run.stderr, /^board-admin: modlog: .+\nsee: board-admin help modlog\n$/, args.join(' '));
    }
  });
});
