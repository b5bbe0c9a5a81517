import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  imageFixture,
  limitsOff,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { download, unzip, type Download } from '../helpers/export.ts';

async function postImage(
  client: Client,
  content: string,
  replyTo?: number,
  alt?: string,
): Promise<{ pid: number; filepath: string }> {
  const image = await imageFixture({ background: content.length % 2 ? '#a33' : '#3a3' });
  const answer = await client.postMultipart('/api/entry/create', { content, reply_to: replyTo, alt }, [
    { name: 'file', filename: 'x.jpg', type: 'image/jpeg', data: image },
  ]);
  assert.equal(answer.status, 201, answer.text);
  return answer.body;
}

async function setAvatar(client: Client): Promise<string> {
  const answer = await client.postMultipart('/api/user/avatar', {}, [
    { name: 'avatar', filename: 'me.jpg', type: 'image/jpeg', data: await imageFixture() },
  ]);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.avatar;
}

function rows<T>(board: TestBoard, sql: string, ...params: unknown[]): T[] {
  return board.app.services.db.all<T>(sql, ...params);
}

describe('GET /api/user/export', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna Export', 'Bodo Fremd'], moderators: ['Mona Mod'] }); // images from fresh accounts
  /** Text only others wrote: none of it may be in Anna's archive. */
  const othersText = ['Bodos geheimer Beitrag', 'Bodos Antwort an Anna', 'Bodos Meldegrund', 'Monas Notiz'];
  let archive: Download;
  let files: Map<string, Buffer>;
  let account: any;
  let annaUid: number;
  const annaFiles: string[] = [];
  const pids: Record<string, number> = {};

  before(async () => {
    const { 'Anna Export': anna, 'Bodo Fremd': bodo, 'Mona Mod': mona } = t.members;
    annaUid = uidOf(t.board, 'Anna Export');
    annaFiles.push(await setAvatar(anna));
    await setAvatar(bodo);
    const step = () => t.board.clock.advance(1);

    pids.bodoTop = await post(bodo, 'Bodos geheimer Beitrag');
    step();
    const bodoImage = await postImage(bodo, 'Bodos Bild');
    step();
    pids.annaTop = await post(anna, 'Annas erster Beitrag https://example.org/seite');
    step();
    pids.annaReply = await post(anna, 'Anna antwortet Bodo', pids.bodoTop);
    step();
    pids.bodoReply = await post(bodo, 'Bodos Antwort an Anna', pids.annaTop);
    step();
    const image = await postImage(anna, 'Anna mit Bild', pids.bodoTop, 'Ein roter Ball im Gras');
    step();
    annaFiles.push(image.filepath);
    pids.annaImage = image.pid;
    const removed = await postImage(anna, 'Anna wird entfernt');
    step();
    annaFiles.push(removed.filepath);
    pids.annaRemoved = removed.pid;
    pids.annaDeleted = await post(anna, 'Anna löscht das');
    step();
    assert.equal((await anna.post(`/api/entry/${pids.annaDeleted}/delete`)).status, 200);
    assert.equal((await mona.post(`/api/mod/entry/${pids.annaRemoved}/remove`, { reason: 'Werbung' })).status, 200);
    await post(mona, 'Monas Notiz', bodoImage.pid);

    for (const [client, pid, mode] of [
      [anna, pids.bodoTop, 'yes'],
      [anna, pids.annaTop, 'no'],
      [bodo, pids.annaTop, 'yes'],
      [mona, pids.bodoTop, 'no'],
    ] as const) {
      assert.equal((await client.post(`/api/entry/${pid}/vote`, { mode })).status, 200);
    }
    assert.equal((await anna.post(`/api/entry/${pids.bodoTop}/report`, { reason: 'Annas Meldung' })).status, 200);
    assert.equal(
      (await anna.post(`/api/entry/${bodoImage.pid}/report`, { reason: 'Annas zweite Meldung' })).status,
      200,
    );
    assert.equal((await mona.post(`/api/mod/entry/${bodoImage.pid}/dismiss`)).status, 200);
    assert.equal((await bodo.post(`/api/entry/${pids.annaTop}/report`, { reason: 'Bodos Meldegrund' })).status, 200);
    assert.equal((await anna.post('/api/user/mute', { user: 'Bodo Fremd' })).status, 200);
    assert.equal((await anna.post(`/api/entry/${pids.bodoTop}/follow`)).status, 200);
    const phone = visitor(t.board);
    await phone.post('/api/auth/login', { user: 'Anna Export', pass: password }, { 'user-agent': 'curl/8.5.0' });

    archive = await download(anna);
    assert.equal(archive.status, 200, archive.bytes.toString());
    files = await unzip(archive.bytes);
    account = JSON.parse(files.get('account.json')!.toString('utf8'));
  });

  test('answers a zip attachment, streamed without a Content-Length, that nothing may cache', () => {
    assertDocumented({ ...archive, body: undefined, text: '', request: { method: 'GET', path: '/api/user/export' } });
    assert.equal(archive.headers.get('content-type'), 'application/zip');
    const disposition = archive.headers.get('content-disposition')!;
    assert.match(
      disposition,
      /^attachment; filename="board-Anna_Export-\d{4}-\d{2}-\d{2}\.zip"; filename\*=UTF-8''board-Anna%20Export-\d{4}-\d{2}-\d{2}\.zip$/,
    );
    assert.equal(archive.headers.get('content-length'), null);
    assert.equal(archive.headers.get('transfer-encoding'), 'chunked');
    assert.equal(archive.headers.get('cache-control'), 'no-store');
  });

  test('holds account.json and exactly the avatar and the images of the account, byte for byte', () => {
    // Issue 32 added the readable part beside account.json.
    const readable = ['uebersicht.html', 'beitraege.csv'];
    assert.deepEqual(
      [...files.keys()].sort(),
      ['account.json', ...readable, ...annaFiles.map((path) => `media/${path}`)].sort(),
    );
    for (const path of annaFiles)
      assert.ok(readFileSync(join(t.board.config.mediaDir, path)).equals(files.get(`media/${path}`)!), path);
  });

  test('account.json has the profile as user info shows it', async () => {
    assert.deepEqual(Object.keys(account), [
      'user',
      'entries',
      'votes',
      'reports',
      'sessions',
      'passkeys',
      'following',
    ]);
    assert.deepEqual(account.user, (await t.members['Anna Export'].get('/api/user/info')).body);
  });

  test('every entry of the account is in it, deleted and removed ones with their metadata', () => {
    const stored = rows<Record<string, unknown>>(
      t.board,
      `SELECT pid, created_at, content, filepath, reply_to, reply_count, last_activity, deleted, bump_count, last_bump,
              removed, removed_reason, removed_at, alt FROM entries WHERE uid = ? ORDER BY pid`,
      annaUid,
    );
    assert.equal(stored.length, 5);
    const expected = stored.map(({ removed, removed_reason, removed_at, alt, ...row }) => {
      const described = alt ? { ...row, alt } : row;
      return removed ? { ...described, removed, removed_reason, removed_at } : described;
    });
    assert.deepEqual(account.entries, expected);
    const byPid = new Map(account.entries.map((e: { pid: number }) => [e.pid, e]));
    const deleted = byPid.get(pids.annaDeleted) as Record<string, unknown>;
    assert.deepEqual(
      [deleted.deleted, deleted.content, deleted.filepath],
      [1, '', ''],
      'a deleted entry: metadata only, its text is gone',
    );
    const removed = byPid.get(pids.annaRemoved) as Record<string, unknown>;
    assert.equal(removed.content, 'Anna wird entfernt', 'the author gets their removed text back');
    assert.equal(removed.removed, 1);
    assert.equal(removed.removed_reason, 'Werbung');
    assert.ok(!('removed' in (byPid.get(pids.annaTop) as object)), 'removal fields only on removed entries');
    assert.equal((byPid.get(pids.annaImage) as Record<string, unknown>).alt, 'Ein roter Ball im Gras');
    assert.ok(!('alt' in (byPid.get(pids.annaTop) as object)), 'alt only where the author wrote one');
  });

  test("the votes cast and the reports filed by the account are in it, and nobody else's", () => {
    const votes = rows<{ pid: number; yes: number; created_at: number }>(
      t.board,
      'SELECT pid, yes, created_at FROM votes WHERE uid = ? ORDER BY pid',
      annaUid,
    );
    assert.equal(votes.length, 2);
    assert.deepEqual(
      account.votes,
      votes.map(({ pid, yes, created_at }) => ({ pid, mode: yes ? 'yes' : 'no', created_at })),
    );
    const reports = rows<{
      id: number;
      pid: number;
      reason: string;
      created_at: number;
      closed_at: number;
      closed_action: string;
    }>(
      t.board,
      'SELECT id, pid, reason, created_at, closed_at, closed_action FROM reports WHERE reporter_uid = ? ORDER BY id',
      annaUid,
    );
    assert.equal(reports.length, 2);
    assert.deepEqual(
      account.reports,
      reports.map(({ closed_action, ...r }) => (r.closed_at ? { ...r, closed_action } : r)),
    );
    assert.equal(account.reports[1].closed_action, 'dismiss');
  });

  test('the sessions are in it as the session list shows them, without tokens or hashes', async () => {
    const listed = (await t.members['Anna Export'].get('/api/user/sessions')).body;
    assert.equal(listed.length, 2);
    assert.deepEqual(account.sessions, listed);
    const text = files.get('account.json')!.toString('utf8');
    for (const row of rows<{ token_hash: Buffer }>(t.board, 'SELECT token_hash FROM sessions WHERE uid = ?', annaUid)) {
      assert.ok(!text.includes(row.token_hash.toString('hex')) && !text.includes(row.token_hash.toString('base64url')));
    }
    assert.ok(!text.includes(t.members['Anna Export'].cookie));
  });

  test('the readable part: an overview page and a table of every entry with German dates', () => {
    const stored = rows<{ pid: number; created_at: number }>(
      t.board,
      'SELECT pid, created_at FROM entries WHERE uid = ? ORDER BY pid',
      annaUid,
    );
    const csv = files.get('beitraege.csv')!.toString('utf8');
    assert.ok(
      csv.startsWith(
        '\uFEFFNr.;Geschrieben;Antwort auf Nr.;Text;Bild;Bildbeschreibung;Antworten;Hochgeholt;Zustand\r\n',
      ),
    );
    const lines = csv.slice(1).trimEnd().split('\r\n');
    assert.equal(lines.length, 1 + stored.length, 'a row per entry');
    const german = new Intl.DateTimeFormat('de-DE', {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'Europe/Berlin',
    });
    for (const [i, entry] of stored.entries())
      assert.ok(lines[i + 1]!.startsWith(`${entry.pid};${german.format(entry.created_at * 1000)};`));
    assert.match(csv, /;Anna mit Bild;media\/e\/[^;]+;Ein roter Ball im Gras;/);
    assert.match(csv, /von der Moderation entfernt \(Werbung\)/);
    assert.match(csv, /;gelöscht\r\n/);
    const page = files.get('uebersicht.html')!.toString('utf8');
    assert.match(page, /^<!doctype html>/);
    assert.ok(page.includes('Konto <strong>Anna Export</strong>'));
    for (const entry of stored) assert.ok(page.includes(`<article id="e${entry.pid}">`), String(entry.pid));
    assert.ok(page.includes('<img src="media/e/') && page.includes('alt="Ein roter Ball im Gras"'));
    assert.ok(!/<script/i.test(page), 'no script');
  });

  test('account.json is indented, one value a line, as JSON.stringify(account, null, 2) writes it', () => {
    const text = files.get('account.json')!.toString('utf8');
    assert.equal(text, `${JSON.stringify(account, null, 2)}\n`);
  });

  /** The overview's section of one member of account.json, from its opening tag to its end. */
  const sectionOf = (page: string, key: string) => {
    const start = page.indexOf(`<section id="${key}">`);
    assert.ok(start >= 0, `no section for account.json's "${key}"`);
    return page.slice(start, page.indexOf('</section>', start));
  };

  test('the overview has a section for every member of account.json, in its order', () => {
    const page = files.get('uebersicht.html')!.toString('utf8');
    const keys = Object.keys(account);
    for (const key of keys) sectionOf(page, key);
    assert.deepEqual(
      [...page.matchAll(/<section id="([^"]+)">/g)].map((match) => match[1]),
      keys,
      'no section without a member',
    );
  });

  test("the overview shows the account's votes, reports, sessions and followed threads in German", () => {
    const page = files.get('uebersicht.html')!.toString('utf8');
    const link = (pid: number) => `<a href="${t.board.config.origin}/e/${pid}">Beitrag Nr. ${pid}</a>`;
    const when = (seconds: number) =>
      new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(
        seconds * 1000,
      );

    const votes = sectionOf(page, 'votes');
    const [yes, no] = [pids.bodoTop!, pids.annaTop!].map(
      (pid) => account.votes.find((vote: { pid: number }) => vote.pid === pid).created_at,
    );
    assert.ok(votes.includes(`${link(pids.bodoTop!)}: <strong>Ja</strong>, am ${when(yes)}`), votes);
    assert.ok(votes.includes(`${link(pids.annaTop!)}: <strong>Nein</strong>, am ${when(no)}`), votes);

    const reports = sectionOf(page, 'reports');
    const [open, dismissed] = account.reports;
    assert.ok(
      reports.includes(`${link(open.pid)}, gemeldet am ${when(open.created_at)} mit dem Grund „Annas Meldung“ – offen`),
      reports,
    );
    assert.ok(
      reports.includes(
        `mit dem Grund „Annas zweite Meldung“ – geschlossen am ${when(dismissed.closed_at)}: abgewiesen`,
      ),
      reports,
    );

    const sessions = sectionOf(page, 'sessions');
    assert.equal(account.sessions.length, 2);
    for (const session of account.sessions)
      assert.ok(
        sessions.includes(
          `<strong>${session.device}</strong>${session.current ? ' (diese Anmeldung hat die Daten heruntergeladen)' : ''}: angemeldet am ${when(session.created_at)}, gültig bis ${when(session.expires)}`,
        ),
        sessions,
      );
    assert.ok(sessions.includes('<strong>curl</strong>'), 'the device in words');

    const following = sectionOf(page, 'following');
    assert.ok(account.following.some((follow: { pid: number }) => follow.pid === pids.bodoTop));
    for (const follow of account.following)
      assert.ok(following.includes(`${link(follow.pid)}, seit ${when(follow.created_at)}`), following);
  });

  test("nobody else's data is in it: no other account's text, name, avatar or image", () => {
    const text = ['account.json', 'uebersicht.html', 'beitraege.csv']
      .map((name) => files.get(name)!.toString('utf8'))
      .join('\n');
    for (const other of [...othersText, 'Bodo Fremd', 'Mona Mod']) assert.ok(!text.includes(other), other);
    const othersFiles = rows<{ path: string }>(
      t.board,
      "SELECT avatar AS path FROM users WHERE uid <> ? AND avatar <> '' UNION SELECT filepath FROM entries WHERE uid <> ? AND filepath <> ''",
      annaUid,
      annaUid,
    ).map((row) => row.path);
    assert.equal(othersFiles.length, 2, "Bodo's avatar and image");
    for (const path of othersFiles) {
      assert.ok(!text.includes(path), path);
      assert.ok(!files.has(`media/${path}`), path);
    }
  });

  test('needs a session', async () => {
    assertError(await visitor(t.board).get('/api/user/export'), 401, 'auth.required');
  });
});

describe('export rate limit', () => {
  const t = useBoard({ members: ['Viel Export', 'Andere Person'] });

  test('3 an hour per account, from any address; other accounts are not affected; the next hour works again', async () => {
    const desk = t.members['Viel Export'];
    for (let i = 0; i < 3; i++) assert.equal((await download(desk)).status, 200);
    const limited = await desk.get('/api/user/export');
    assertError(limited, 429, 'rate.limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);

    const phone = visitor(t.board);
    await phone.post('/api/auth/login', { user: 'Viel Export', pass: password });
    assertError(await phone.get('/api/user/export'), 429, 'rate.limited', {
      note: 'another address of the same account',
    });
    assert.equal((await download(t.members['Andere Person'])).status, 200);

    t.board.clock.advance(3600);
    assert.equal((await download(desk)).status, 200);
  });
});

describe('export rate limit with BOARD_LIMITS=0', () => {
  const t = useBoard({ env: limitsOff, members: ['Immer Begrenzt'] });

  test('stays 3 an hour: it is a privacy and cost limit, not one of the abuse limits BOARD_LIMITS lifts', async () => {
    const client = t.members['Immer Begrenzt'];
    for (let i = 0; i < 3; i++) assert.equal((await download(client)).status, 200);
    assertError(await client.get('/api/user/export'), 429, 'rate.limited');
  });
});

describe('export of a big account', () => {
  const t = useBoard({ members: ['Vielschreiberin'] });

  test('every entry is in account.json when there are more than one page of rows', async () => {
    const db = t.board.app.services.db;
    const uid = uidOf(t.board, 'Vielschreiberin');
    db.tx(() => {
      for (let i = 0; i < 1234; i++) {
        const pid = db.run(
          'INSERT INTO entries (uid, created_at, content, root, depth, last_activity) VALUES (?, ?, ?, 0, 0, ?)',
          uid,
          i,
          `Nummer ${i} – äöü`,
          i,
        ).lastInsertRowid;
        db.run('UPDATE entries SET root = ? WHERE pid = ?', pid, pid);
        if (i % 2) db.run('INSERT INTO votes (pid, uid, yes, created_at) VALUES (?, ?, 1, ?)', pid, uid, i);
      }
    });
    const archive = await download(t.members.Vielschreiberin);
    assert.equal(archive.status, 200);
    const account = JSON.parse((await unzip(archive.bytes)).get('account.json')!.toString('utf8'));
    assert.deepEqual(
      account.entries.map((e: { content: string }) => e.content),
      Array.from({ length: 1234 }, (_, i) => `Nummer ${i} – äöü`),
    );
    assert.equal(account.votes.length, 617);
  });

  test('a client that leaves in the middle of the download is no error, and the board goes on', async () => {
    const db = t.board.app.services.db;
    const uid = uidOf(t.board, 'Vielschreiberin');
    db.tx(() => {
      for (let i = 0; i < 2000; i++) {
        db.run(
          'UPDATE entries SET content = ? WHERE pid = (SELECT pid FROM entries WHERE uid = ? ORDER BY pid LIMIT 1 OFFSET ?)',
          randomBytes(700).toString('base64'),
          uid,
          i % 1234,
        );
      }
    });
    const client = t.members.Vielschreiberin;
    const aborter = new AbortController();
    const res = await fetch(`${client.base}/api/user/export`, {
      headers: { cookie: `session=${client.cookie}`, 'x-forwarded-for': client.ip! },
      signal: aborter.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    assert.ok((await reader.read()).value!.length > 0);
    aborter.abort();
    await assert.rejects(reader.read());
    assert.equal((await client.get('/api/user/info')).status, 200);
    assert.ok(
      !t.board.logs.some((line) => line.startsWith('error ')),
      t.board.logs.filter((line) => line.startsWith('error ')).join('\n'),
    );
  });
});

describe('export failures', () => {
  const t = useBoard({ members: ['Pech Vogel', 'Kopf Frage'] });

  test('HEAD answers the headers only', async () => {
    const client = t.members['Kopf Frage'];
    const res = await fetch(`${client.base}/api/user/export`, {
      method: 'HEAD',
      headers: { cookie: `session=${client.cookie}`, 'x-forwarded-for': client.ip! },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });

  test('a database failure before the first byte answers 500 internal', async () => {
    await post(t.members['Pech Vogel'], 'etwas');
    const db = t.board.app.services.db;
    db.setFault((sql) =>
      sql.includes('FROM sessions') && sql.includes('LIMIT') ? new Error('disk I/O error') : undefined,
    );
    try {
      assertError(await t.members['Pech Vogel'].get('/api/user/export'), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
  });

  test('a database failure while the archive streams cuts the connection and is logged; the server goes on', async () => {
    const db = t.board.app.services.db;
    db.setFault((sql) =>
      sql.includes('FROM entries WHERE uid = ? AND pid > ?') ? new Error('disk I/O error') : undefined,
    );
    try {
      const client = t.members['Pech Vogel'];
      const res = await fetch(`${client.base}/api/user/export`, {
        headers: { cookie: `session=${client.cookie}`, 'x-forwarded-for': client.ip! },
      });
      assert.equal(res.status, 200, 'the headers went out before the failure');
      await assert.rejects(res.arrayBuffer());
    } finally {
      db.setFault(undefined);
    }
    assert.ok(t.board.logs.some((line) => line.includes('disk I/O error')));
    assert.equal((await t.members['Kopf Frage'].get('/api/user/info')).status, 200);
  });
});

describe('the readable export is safe to open', () => {
  const t = useBoard({ env: limitsOff, members: ['Formel Fritz'] });

  test('text a spreadsheet would run as a formula is defused; markup in the overview is text', async () => {
    const fritz = t.members['Formel Fritz'];
    await post(fritz, '=HYPERLINK("http://example.org";"klick")');
    await post(fritz, '<script>alert(1)</script> & <b>fett</b>');
    const files = await unzip((await download(fritz)).bytes);
    const csv = files.get('beitraege.csv')!.toString('utf8');
    assert.ok(csv.includes(`;"'=HYPERLINK(""http://example.org"";""klick"")";`), csv);
    const page = files.get('uebersicht.html')!.toString('utf8');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;fett&lt;/b&gt;'));
    assert.ok(!page.includes('<script>'));
  });
});
