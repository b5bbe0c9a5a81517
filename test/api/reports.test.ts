import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  limitsOff,
  member,
  post,
  runAdmin,
  runAdminHere,
  uidOf,
  useBoard,
  visitor,
  type TestBoard,
} from '../helpers.ts';

interface ReportRow {
  id: number;
  pid: number;
  reporter_uid: number;
  reason: string;
  closed_at: number;
}

function reportsOf(board: TestBoard, pid: number): ReportRow[] {
  return board.app.services.db.all<ReportRow>(
    'SELECT id, pid, reporter_uid, reason, closed_at FROM reports WHERE pid = ? ORDER BY id',
    pid,
  );
}

describe('reporting an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('without a session is anonymous: 200 {status:"reported"} and a row with reporter_uid 0', async () => {
    const pid = await post(t.members.Anna, 'fragwürdig');
    const answer = await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'Werbung' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'reported' });
    const rows = reportsOf(t.board, pid);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.reporter_uid, 0);
    assert.equal(rows[0]!.reason, 'Werbung');
    assert.equal(rows[0]!.closed_at, 0);
  });

  test('the reason is optional', async () => {
    const pid = await post(t.members.Anna, 'ohne Grund');
    const answer = await t.members.Bert.post(`/api/entry/${pid}/report`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      reportsOf(t.board, pid).map((r) => r.reason),
      [''],
    );
  });

  test('anonymous reports are all kept', async () => {
    const pid = await post(t.members.Anna, 'oft gemeldet');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'eins' });
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'zwei' });
    assert.equal(reportsOf(t.board, pid).length, 2);
  });

  test('a logged-in user reporting twice leaves one open report', async () => {
    const pid = await post(t.members.Anna, 'doppelt');
    for (const reason of ['erstes Mal', 'zweites Mal']) {
      const answer = await t.members.Bert.post(`/api/entry/${pid}/report`, { reason });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { status: 'reported' });
    }
    const rows = reportsOf(t.board, pid);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.reporter_uid, uidOf(t.board, 'Bert'));
    assert.equal(rows[0]!.reason, 'erstes Mal');
  });

  test('after board-admin report-close the same user may report again', async () => {
    const pid = await post(t.members.Anna, 'wieder');
    await t.members.Bert.post(`/api/entry/${pid}/report`, { reason: 'alt' });
    const [open] = reportsOf(t.board, pid);
    const closed = await runAdmin(t.board, ['report-close', String(open!.id)]);
    assert.equal(closed.code, 0, closed.stderr);
    assert.match(closed.stdout, new RegExp(`#${open!.id}\\b`));
    assert.notEqual(reportsOf(t.board, pid)[0]!.closed_at, 0);

    assert.equal((await t.members.Bert.post(`/api/entry/${pid}/report`, { reason: 'neu' })).status, 200);
    const rows = reportsOf(t.board, pid);
    assert.equal(rows.length, 2);
    assert.deepEqual(
      rows.filter((r) => r.closed_at === 0).map((r) => r.reason),
      ['neu'],
    );

    const again = await runAdminHere(t.board, ['report-close', String(open!.id)]);
    assert.equal(again.code, 1, 'closing a closed report fails');
  });

  test('a reason over 500 code points answers 400 report.too_long; 500 emoji are accepted', async () => {
    const pid = await post(t.members.Anna, 'lang');
    assertError(
      await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'x'.repeat(501) }),
      400,
      'report.too_long',
      'reason',
    );
    assert.equal(reportsOf(t.board, pid).length, 0);
    const answer = await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: '🚩'.repeat(500) });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(reportsOf(t.board, pid)[0]!.reason, '🚩'.repeat(500));
  });

  test('an unknown or deleted entry answers 404 entry.not_found', async () => {
    const pid = await post(t.members.Anna, 'weg');
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assertError(await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'zu spät' }), 404, 'entry.not_found');
    assertError(await t.members.Bert.post('/api/entry/987654/report'), 404, 'entry.not_found');
    assert.equal(reportsOf(t.board, pid).length, 0);
  });

  test('multipart reports work too', async () => {
    const pid = await post(t.members.Anna, 'multipart');
    const answer = await visitor(t.board).postMultipart(`/api/entry/${pid}/report`, { reason: 'per multipart' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      reportsOf(t.board, pid).map((r) => r.reason),
      ['per multipart'],
    );
  });
});

describe('report rate limit', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });
  let pid: number;
  before(async () => {
    pid = await post(t.members.Anna, 'viel gemeldet');
  });

  test('the 11th report in a minute from one address answers 429 rate.limited with Retry-After; others are not affected', async () => {
    const reporter = visitor(t.board);
    for (let i = 1; i <= 10; i++) {
      const answer = await reporter.post(`/api/entry/${pid}/report`, { reason: `Nr. ${i}` });
      assert.equal(answer.status, 200, `report ${i}: ${answer.text}`);
    }
    const limited = await reporter.post(`/api/entry/${pid}/report`, { reason: 'Nr. 11' });
    assertError(limited, 429, 'rate.limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(reportsOf(t.board, pid).length, 10, 'the refused report is not stored');

    assert.equal((await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'andere Adresse' })).status, 200);

    t.board.clock.advance(retryAfter);
    assert.equal((await reporter.post(`/api/entry/${pid}/report`, { reason: 'später' })).status, 200);
  });
});

describe('board-admin reports', () => {
  // The real program runs in the first test here and for report-close above; the rest in this process (runAdminHere).
  const t = useBoard({ env: limitsOff });

  test('with nothing reported says so and exits 0', async () => {
    const run = await runAdmin(t.board, ['reports']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /no open reports/);
  });

  test('lists each open report with its id, entry and reason, and leaves out closed ones', async () => {
    const anna = await member(t.board, 'Anna');
    const spam = await post(anna, 'Kauft billige Uhren!');
    const rude = await post(anna, 'Unhöflich');
    await visitor(t.board).post(`/api/entry/${spam}/report`, { reason: 'Werbung für Uhren' });
    await visitor(t.board).post(`/api/entry/${rude}/report`, { reason: 'beleidigend' });
    const rows = t.board.app.services.db.all<ReportRow>('SELECT id, pid, reason FROM reports ORDER BY id');
    const [spamReport, rudeReport] = rows;

    const run = await runAdminHere(t.board, ['reports']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`#${spamReport!.id}\\s+entry ${spam}\\b`));
    assert.match(run.stdout, new RegExp(`#${rudeReport!.id}\\s+entry ${rude}\\b`));
    assert.match(run.stdout, /Werbung für Uhren/);
    assert.match(run.stdout, /beleidigend/);
    assert.match(run.stdout, /Kauft billige Uhren!/, 'an excerpt of the entry');

    assert.equal((await runAdminHere(t.board, ['report-close', String(spamReport!.id)])).code, 0);
    const after = await runAdminHere(t.board, ['reports']);
    assert.equal(after.code, 0);
    assert.doesNotMatch(after.stdout, new RegExp(`#${spamReport!.id}\\b`));
    assert.doesNotMatch(after.stdout, /Werbung für Uhren/);
    assert.match(after.stdout, new RegExp(`#${rudeReport!.id}\\s+entry ${rude}\\b`));
  });

  test('report-close with a missing or malformed id exits 2 with usage', async () => {
    for (const args of [['report-close'], ['report-close', 'abc']]) {
      const run = await runAdminHere(t.board, args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}`);
      assert.match(run.stderr, /report-close/);
    }
  });
});
