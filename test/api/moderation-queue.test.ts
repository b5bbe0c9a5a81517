import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  entryRow,
  limitsOff,
  member,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type TestBoard,
} from '../helpers.ts';
import { entryFields } from '../helpers/entries.ts';

/** docs/API.md "GET /api/mod/reports/{page}", "POST /api/mod/entry/{pid}/dismiss" and "GET /api/modlog/{page}": the queue and the public log. */

function openReports(board: TestBoard, pid: number): number {
  return board.app.services.db.value('SELECT count(*) FROM reports WHERE pid = ? AND closed_at = 0', pid);
}

describe('the report queue', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('with nothing reported: [] and {open_entries: 0}', async () => {
    assert.deepEqual((await t.members.Mia.get('/api/mod/reports/0')).body, []);
    assert.deepEqual((await t.members.Mia.get('/api/mod/queue')).body, { open_entries: 0 });
  });

  test('groups open reports by entry: most open reports first, then the oldest report first; reporters are ""', async () => {
    const report = async (pid: number, reason: string) => {
      t.board.clock.advance(1);
      assert.equal((await visitor(t.board).post(`/api/entry/${pid}/report`, { reason })).status, 200);
    };
    const once = await post(t.members.Anna, 'einmal gemeldet');
    const twiceLater = await post(t.members.Anna, 'zweimal, später');
    const twiceEarly = await post(t.members.Bert, 'zweimal, früher');
    const closed = await post(t.members.Bert, 'verworfen');
    await report(once, 'a');
    await report(twiceEarly, 'b1');
    await report(closed, 'c');
    await report(twiceLater, 'd1');
    await t.members.Bert.post(`/api/entry/${twiceEarly}/report`, { reason: 'b2 von Bert' });
    await report(twiceLater, 'd2');
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${closed}/dismiss`)).status, 200);

    const page = await t.members.Mia.get('/api/mod/reports/0');
    assertDocumented(page);
    const queue = page.body;
    assert.deepEqual(
      queue.map((item: any) => [item.entry.pid, item.open_reports]),
      [
        [twiceEarly, 2],
        [twiceLater, 2],
        [once, 1],
      ],
    );
    const first = queue[0];
    assert.deepEqual(Object.keys(first).sort(), ['entry', 'open_reports', 'reports']);
    assert.deepEqual(Object.keys(first.entry).sort(), entryFields, 'a full Entry');
    assert.equal(first.entry.username, 'Bert');
    assert.deepEqual(
      first.reports.map((r: any) => [r.reason, r.reporter]),
      [
        ['b1', ''],
        ['b2 von Bert', ''],
      ],
      'oldest first; no reporter named',
    );
    for (const r of first.reports) {
      assert.deepEqual(Object.keys(r).sort(), ['created_at', 'id', 'instance', 'reason', 'reporter']);
      assert.equal(r.instance, '', 'a report made here names no server');
    }
    assert.doesNotMatch(JSON.stringify(queue), /"reporter":"[^"]/);
    const size = await t.members.Mia.get('/api/mod/queue');
    assertDocumented(size);
    assert.deepEqual(size.body, { open_entries: 3 });
  });

  test('20 entries a page, at most 50 reports shown per entry with the full count', async () => {
    const many = await post(t.members.Anna, 'sehr oft gemeldet');
    for (let i = 0; i < 52; i++) await visitor(t.board).post(`/api/entry/${many}/report`, { reason: `Nr. ${i}` });
    for (let i = 0; i < 20; i++)
      await visitor(t.board).post(`/api/entry/${await post(t.members.Bert, `Seite ${i}`)}/report`);
    const page0 = (await t.members.Mia.get('/api/mod/reports/0')).body;
    assert.equal(page0.length, 20);
    assert.equal(page0[0].entry.pid, many);
    assert.equal(page0[0].open_reports, 52);
    assert.equal(page0[0].reports.length, 50);
    assert.equal(page0[0].reports[0].reason, 'Nr. 0');
    const page1 = (await t.members.Mia.get('/api/mod/reports/1')).body;
    assert.equal(page1.length, 24 - 20);
    assert.deepEqual((await t.members.Mia.get('/api/mod/reports/100')).body, []);
  });
});

describe('dismissing the reports of an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('closes every open report without touching the entry; answers {pid, status: "dismissed"}', async () => {
    const pid = await post(t.members.Anna, 'harmlos');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'gefällt mir nicht' });
    await t.members.Bert.post(`/api/entry/${pid}/report`, { reason: 'mir auch nicht' });
    const answer = await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`, { reason: 'kein Verstoß' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { pid, status: 'dismissed' });
    assert.equal(openReports(t.board, pid), 0);
    assert.equal(entryRow(t.board, pid)!.deleted, 0);
    const { db } = t.board.app.services;
    const log = db.one<{ id: number; action: string; reason: string; uid: number }>(
      'SELECT id, action, reason, uid FROM modlog WHERE pid = ?',
      pid,
    )!;
    assert.deepEqual([log.action, log.reason, log.uid], ['dismiss', 'kein Verstoß', uidOf(t.board, 'Anna')]);
    assert.deepEqual(db.all('SELECT DISTINCT closed_action, closed_log_id FROM reports WHERE pid = ?', pid), [
      { closed_action: 'dismiss', closed_log_id: log.id },
    ]);

    assert.equal(
      (await t.members.Bert.post(`/api/entry/${pid}/report`, { reason: 'doch' })).status,
      200,
      'the same user may report again',
    );
    assert.equal(openReports(t.board, pid), 1);
  });

  test('the reason is optional; without an open report 404 report.not_found; an unknown entry 404 entry.not_found', async () => {
    const pid = await post(t.members.Anna, 'ohne Grund verworfen');
    assertError(await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`), 404, 'report.not_found');
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`)).status, 200);
    assertError(await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`), 404, 'report.not_found', {
      note: 'a second dismiss',
    });
    assertError(await t.members.Mia.post('/api/mod/entry/987654/dismiss'), 404, 'entry.not_found');
  });

  test('reports on an entry its author deleted can be dismissed', async () => {
    const pid = await post(t.members.Anna, 'gemeldet, dann gelöscht');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'böse' });
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assert.equal(openReports(t.board, pid), 1, 'a deletion leaves the reports open');
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`)).status, 200);
    assert.equal(openReports(t.board, pid), 0);
  });
});

describe('the public moderation log', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('starts empty; needs no session', async () => {
    const answer = await visitor(t.board).get('/api/modlog/0');
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.deepEqual(answer.body, []);
  });

  test('shows every action newest first as {id, created_at, action, pid, username, reason, until}, naming no moderator', async () => {
    const pid = await post(t.members.Anna, 'entfernt und zurück');
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    const mia = t.members.Mia;
    assert.equal((await mia.post(`/api/mod/entry/${pid}/dismiss`, { reason: 'ok' })).status, 200);
    assert.equal((await mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    assert.equal((await mia.post(`/api/mod/entry/${pid}/restore`)).status, 200);
    assert.equal((await mia.post('/api/mod/user/Bert/ban', { reason: 'Pöbelei', days: 7 })).status, 200);
    const until = t.board.clock.now() + 7 * 86_400;
    assert.equal((await mia.post('/api/mod/user/Bert/unban')).status, 200);

    const logPage = await visitor(t.board).get('/api/modlog/0');
    assertDocumented(logPage);
    const log = logPage.body;
    assert.deepEqual(
      log.map(({ action, pid, username, reason, until }: any) => ({ action, pid, username, reason, until })),
      [
        { action: 'unban', pid: 0, username: 'Bert', reason: '', until: 0 },
        { action: 'ban', pid: 0, username: 'Bert', reason: 'Pöbelei', until },
        { action: 'restore', pid, username: 'Anna', reason: '', until: 0 },
        { action: 'remove', pid, username: 'Anna', reason: 'Spam', until: 0 },
        { action: 'dismiss', pid, username: 'Anna', reason: 'ok', until: 0 },
      ],
    );
    for (const row of log)
      assert.deepEqual(Object.keys(row), ['id', 'created_at', 'action', 'pid', 'username', 'reason', 'until']);
    assert.ok(log[0].id > log[1].id && log[0].created_at === t.board.clock.now());
    assert.doesNotMatch(JSON.stringify(log), /Mia|moderator/, 'the board speaks as "die Moderation"');
  });

  test('role changes are not in the public log', async () => {
    const { db } = t.board.app.services;
    assert.ok(db.one("SELECT 1 FROM modlog WHERE action = 'mod_add'"), 'the test set-up made Mia a moderator');
    const logPage = await visitor(t.board).get('/api/modlog/0');
    assertDocumented(logPage);
    const log = logPage.body;
    assert.equal(
      log.some((r: any) => r.action.startsWith('mod_')),
      false,
    );
  });

  test('a deleted account\'s name leaves the log: username ""', async () => {
    const gone = await member(t.board, 'Weg');
    assert.equal((await t.members.Mia.post('/api/mod/user/Weg/ban', { reason: 'kurz', days: 1 })).status, 200);
    t.board.clock.advance(86_400);
    assert.equal((await gone.post('/api/auth/login', { user: 'Weg', pass: password })).status, 200);
    assert.equal((await gone.post('/api/user/delete', { pass1: password })).status, 200);
    const [latest] = (await visitor(t.board).get('/api/modlog/0')).body;
    assert.deepEqual([latest.action, latest.username, latest.reason], ['ban', '', 'kurz']);
  });

  test('50 rows a page; page 101 or a non-number answers 400 input.invalid, field page', async () => {
    for (let i = 0; i < 60; i++) {
      const pid = await post(t.members.Anna, `Nr. ${i}`);
      assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: `Grund ${i}` })).status, 200);
    }
    const page0 = (await visitor(t.board).get('/api/modlog/0')).body;
    const page1 = (await visitor(t.board).get('/api/modlog/1')).body;
    assert.equal(page0.length, 50);
    assert.equal(page0[0].reason, 'Grund 59');
    assert.equal(page1[0].reason, 'Grund 9');
    assert.equal(page1.at(-1).action, 'dismiss', 'the oldest row comes last');
    assertError(await visitor(t.board).get('/api/modlog/101'), 400, 'input.invalid', 'page');
    assertError(await visitor(t.board).get('/api/modlog/x'), 400, 'input.invalid', 'page');
  });
});
