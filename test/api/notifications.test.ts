import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  limitsOff,
  member,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
} from '../helpers.ts';

/** docs/API.md "Notifications of replies and mentions": who is told, when not, what hides and returns. */

interface Seen {
  kind: string;
  pid: number;
  read: number;
}

async function seen(client: Client, page = 0): Promise<Seen[]> {
  const answer = await client.get(`/api/user/notifications/${page}`);
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return answer.body.map((n: { kind: string; read: number; entry: { pid: number } }) => ({
    kind: n.kind,
    pid: n.entry.pid,
    read: n.read,
  }));
}

async function unread(client: Client): Promise<number> {
  const answer = await client.get('/api/user/notifications/unread');
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return answer.body.count;
}

describe('notifications: replies', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Carla'] });

  test("a reply tells the parent's author: {id, created_at, kind, read, entry}; an own reply tells nobody", async () => {
    const { Anna, Bert } = t.members;
    const top = await post(Anna, 'Wer kennt ein gutes Café?');
    await post(Anna, 'Ich antworte mir selbst.', top);
    t.board.clock.advance(5);
    const reply = await post(Bert, 'Das Café am Markt!', top);
    const answer = await Anna.get('/api/user/notifications/0');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.length, 1);
    const [n] = answer.body;
    assert.deepEqual(Object.keys(n).sort(), ['created_at', 'entry', 'id', 'kind', 'read']);
    assert.equal(n.kind, 'reply');
    assert.equal(n.read, 0);
    assert.equal(n.created_at, t.board.clock.now());
    assert.equal(n.entry.pid, reply);
    assert.equal(n.entry.content, 'Das Café am Markt!');
    assert.equal(await unread(Anna), 1);
    assert.deepEqual(await seen(Bert), [], 'the replier is told nothing');
  });

  test('never from an account the recipient muted', async () => {
    const { Anna, Carla } = t.members;
    const top = await post(Anna, 'Noch eine Frage.');
    assert.equal((await Anna.post('/api/user/mute', { user: 'Carla' })).status, 200);
    await post(Carla, 'Laute Antwort.', top);
    assert.ok(!(await seen(Anna)).some((n) => n.pid > top), "a muted account's reply tells nothing");
    assert.equal((await Anna.post('/api/user/unmute', { user: 'Carla' })).status, 200);
  });

  test('read marks: up_to marks up to an id, absent marks all; {count} still unread', async () => {
    const { Anna, Bert } = t.members;
    const top = await post(Anna, 'Zum Lesen.');
    await post(Bert, 'Eins.', top);
    await post(Bert, 'Zwei.', top);
    const list = (await Anna.get('/api/user/notifications/0')).body;
    const before = await unread(Anna);
    assert.ok(before >= 2);
    const oldestUnread = list.filter((n: { read: number }) => n.read === 0).at(-1).id;
    const marked = await Anna.post('/api/user/notifications/read', { up_to: oldestUnread });
    assert.equal(marked.status, 200, marked.text);
    assert.deepEqual(marked.body, { count: before - 1 });
    assertDocumented(marked);
    const all = await Anna.post('/api/user/notifications/read');
    assert.deepEqual(all.body, { count: 0 });
    assert.equal(await unread(Anna), 0);
    assert.ok((await seen(Anna)).every((n) => n.read === 1));
    assertError(await Anna.post('/api/user/notifications/read', { up_to: 'alle' }), 400, 'input.invalid', {
      field: 'up_to',
    });
    assertError(await Anna.post('/api/user/notifications/read', { up_to: '-1' }), 400, 'input.invalid', {
      field: 'up_to',
    });
  });

  test('a session is needed; pages are 0–100, 20 a page, newest first', async () => {
    assertError(await visitor(t.board).get('/api/user/notifications/0'), 401, 'auth.required');
    assertError(await visitor(t.board).get('/api/user/notifications/unread'), 401, 'auth.required');
    assertError(await visitor(t.board).post('/api/user/notifications/read'), 401, 'auth.required');
    assertError(await t.members.Carla.get('/api/user/notifications/101'), 400, 'input.invalid', { field: 'page' });
    const top = await post(t.members.Carla, 'Viele Antworten bitte.');
    const replies: number[] = [];
    for (let i = 0; i < 22; i++) replies.push(await post(t.members.Bert, `Antwort ${i}`, top));
    const first = await seen(t.members.Carla, 0);
    assert.equal(first.length, 20);
    assert.deepEqual(
      first.map((n) => n.pid),
      replies.slice(-20).reverse(),
    );
    assert.deepEqual(
      (await seen(t.members.Carla, 1)).map((n) => n.pid),
      replies.slice(0, 2).reverse(),
    );
  });
});

describe('notifications: mentions', () => {
  const t = useBoard({
    env: limitsOff,
    members: ['Anna', 'Anna Maria', 'Dr. Bo', 'Ede', 'Fritz', 'Gabi', 'Hans', 'Ida', 'Jo Ko'],
  });
  const mentioned = async (name: 'Anna' | 'Anna Maria' | 'Dr. Bo' | 'Ede' | 'Jo Ko', pid: number) =>
    (await seen(t.members[name])).some((n) => n.pid === pid && n.kind === 'mention');

  test('@ and the longest existing name, in any letter case, with spaces and dots; trailing .,;:!? dropped', async () => {
    const pid = await post(t.members.Ede, 'Danke @anna maria, und @DR. BO! Frag auch @Jo Ko.');
    assert.equal(await mentioned('Anna Maria', pid), true);
    assert.equal(await mentioned('Anna', pid), false, 'the longest name wins');
    assert.equal(await mentioned('Dr. Bo', pid), true);
    assert.equal(await mentioned('Jo Ko', pid), true);
    const short = await post(t.members.Ede, 'Hallo @Anna: schau mal; @Annabell gibt es nicht.');
    assert.equal(await mentioned('Anna', short), true);
    assert.equal(await mentioned('Anna Maria', short), false);
  });

  test('no mention inside an address, of oneself or of nobody', async () => {
    const pid = await post(t.members.Ede, 'Schreib an info@Ede.de oder an @Ede oder an @Niemand.');
    assert.equal(await mentioned('Ede', pid), false);
  });

  test('at most 5 accounts per entry', async () => {
    const pid = await post(t.members.Ede, '@Anna @Anna Maria @Dr. Bo @Fritz @Gabi @Hans @Ida');
    const told = ['Anna', 'Anna Maria', 'Dr. Bo', 'Fritz', 'Gabi', 'Hans', 'Ida'] as const;
    let count = 0;
    for (const name of told) if ((await seen(t.members[name])).some((n) => n.pid === pid)) count++;
    assert.equal(count, 5);
  });

  test("an edit that adds a mention tells once; a reply that mentions the parent's author tells once", async () => {
    const pid = await post(t.members.Ede, 'Noch ohne Namen.');
    assert.equal((await t.members.Ede.post(`/api/entry/${pid}/edit`, { content: 'Jetzt mit @Jo Ko.' })).status, 200);
    assert.equal((await t.members.Ede.post(`/api/entry/${pid}/edit`, { content: 'Wieder mit @Jo Ko!' })).status, 200);
    assert.equal((await seen(t.members['Jo Ko'])).filter((n) => n.pid === pid).length, 1);
    const top = await post(t.members['Jo Ko'], 'Ein Thema.');
    const reply = await post(t.members.Ede, 'Genau, @Jo Ko.', top);
    assert.deepEqual(
      (await seen(t.members['Jo Ko'])).filter((n) => n.pid === reply).map((n) => n.kind),
      ['reply'],
    );
  });
});

describe('notifications: deleted, removed, restored entries and deleted accounts', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Weg'], moderators: ['Mod'] });

  test("a deleted or removed entry's notification disappears; a restore brings it back", async () => {
    const { Anna, Bert, Mod } = t.members;
    const top = await post(Anna, 'Frage an alle.');
    const deleted = await post(Bert, 'Gleich gelöscht.', top);
    const removed = await post(Bert, 'Gleich entfernt.', top);
    assert.deepEqual(
      (await seen(Anna)).map((n) => n.pid),
      [removed, deleted],
    );
    assert.equal(await unread(Anna), 2);
    assert.equal((await Bert.post(`/api/entry/${deleted}/delete`)).status, 200);
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/remove`, { reason: 'Spam' })).status, 200);
    assert.deepEqual(await seen(Anna), []);
    assert.equal(await unread(Anna), 0);
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/restore`, { reason: 'Doch kein Spam' })).status, 200);
    assert.deepEqual(
      (await seen(Anna)).map((n) => n.pid),
      [removed],
    );
    assert.equal(await unread(Anna), 1);
  });

  test('account deletion removes its notifications both ways', async () => {
    const { Anna, Weg } = t.members;
    const db = t.board.app.services.db;
    const annasTop = await post(Anna, 'Für Weg.');
    await post(Weg, 'Antwort von Weg.', annasTop);
    const wegsTop = await post(Weg, 'Von Weg.');
    await post(Anna, 'Antwort an Weg.', wegsTop);
    const weg = uidOf(t.board, 'Weg');
    const rows = () => db.value('SELECT count(*) FROM notifications WHERE uid = ? OR actor_uid = ?', weg, weg);
    assert.equal(rows(), 2);
    assert.equal((await Weg.post('/api/user/delete', { pass1: password })).status, 200);
    assert.equal(rows(), 0);
    assert.ok(!(await seen(Anna)).some((n) => n.pid > annasTop && n.pid < wegsTop));
  });

  test('a new account is told of nothing from before', async () => {
    const late = await member(t.board, 'Spät');
    assert.deepEqual(await seen(late), []);
  });
});
