import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { trustAfter } from '../../lib/accounts/trust.ts';
import {
  assertDocumented,
  assertError,
  day,
  entryRow,
  imageFixture,
  limitsOff,
  member,
  modlogRows,
  post,
  useBoard,
  visitor,
} from '../helpers.ts';

/**
 * docs/API.md "Trust levels": level 0 until 2 days old with 3 live entries no moderator removed;
 * the first account, board-admin's and moderators start trusted; level 0 posts at most 2 entries
 * with links (2 links each) and 1 image a day, 429 rate.new_account saying what unlocks more;
 * moderators set a level; the level shows in the own info and to moderators only; every 429 names
 * its limit. Default limits.
 */

describe('trust levels', () => {
  const t = useBoard({ members: ['Erste', 'Neue'], moderators: ['Mia'] });
  const level = async (name: 'Erste' | 'Neue') => (await t.members[name].get('/api/user/info')).body.trust_level;

  test("the board's first account starts trusted: links at once; a later account is level 0", async () => {
    assert.equal(await level('Erste'), 1);
    assert.equal(
      (await t.members.Erste.post('/api/entry/create', { content: 'Willkommen: https://example.org/' })).status,
      201,
    );
    const info = await t.members.Neue.get('/api/user/info');
    assertDocumented(info);
    assert.equal(info.body.trust_level, 0);
    assert.equal((await t.members.Neue.get('/api/auth/whoami')).body.trust_level, 0);
    const publicInfo = await visitor(t.board).get('/api/u/Neue/info');
    assert.equal('trust_level' in publicInfo.body, false, 'never public');
    assert.equal((await t.members.Mia.get('/api/mod/user/Neue')).body.trust_level, 0, 'moderators see it');
  });

  test("every 429 names its limit: a new account's third entry in a minute", async () => {
    for (let i = 0; i < 2; i++) await post(t.members.Neue, `Eintrag ${i}`);
    const refused = await t.members.Neue.post('/api/entry/create', { content: 'der dritte' });
    assertError(refused, 429, 'rate.limited', { exact: true });
    assert.match(
      refused.body.error.message,
      /^Zu viele Beiträge: höchstens 2 pro Minute und 20 pro Stunde für neue Konten, 18 pro Minute/,
    );
  });

  test('level 0 posts at most 2 entries with links a day, 2 links each, and 1 image; the 429 says what unlocks more', async () => {
    t.board.clock.advance(600); // past the first 10 minutes without links
    const neue = t.members.Neue;
    const tooMany = await neue.post('/api/entry/create', {
      content: 'a https://a.example/ b https://b.example/ c https://c.example/',
    });
    assertError(tooMany, 429, 'rate.new_account', { exact: true });
    assert.match(tooMany.body.error.message, /höchstens 2 Beiträge mit Links \(je höchstens 2 Links\) und 1 Bild/);
    assert.match(tooMany.body.error.message, /Mehr geht ab 2 Tagen und 3 Beiträgen/);
    assert.equal((await neue.post('/api/entry/create', { content: 'eins https://a.example/' })).status, 201);
    t.board.clock.advance(60);
    assert.equal(
      (await neue.post('/api/entry/create', { content: 'zwei https://a.example/ https://b.example/' })).status,
      201,
    );
    t.board.clock.advance(60);
    const third = await neue.post('/api/entry/create', { content: 'drei https://c.example/' });
    assertError(third, 429, 'rate.new_account');
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    const image = async () =>
      neue.postMultipart('/api/entry/create', { content: 'Bild' }, [
        { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
      ]);
    assert.equal((await image()).status, 201);
    t.board.clock.advance(60);
    assertError(await image(), 429, 'rate.new_account');
  });

  test('2 days and 3 live entries earn level 1; an entry a moderator removed does not count', async () => {
    const fresh = await member(t.board, 'Später');
    const pids = [await post(fresh, 'a'), await post(fresh, 'b')];
    t.board.clock.advance(61);
    pids.push(await post(fresh, 'c'));
    const own = async () => (await fresh.get('/api/user/info')).body.trust_level;
    t.board.clock.advance(trustAfter.seconds - 200);
    assert.equal(await own(), 0, 'not old enough');
    t.board.clock.advance(200);
    assert.equal(await own(), 1);
    await t.members.Mia.post(`/api/mod/entry/${pids[0]}/remove`, { reason: 'Spam' });
    assert.equal(await own(), 0, 'a removed entry does not count');
  });

  test('a moderator sets a level by hand, logged for moderators only; a moderator is trusted', async () => {
    const raised = await t.members.Mia.post('/api/mod/user/Neue/trust', { level: 1 });
    assert.equal(raised.status, 200, raised.text);
    assertDocumented(raised);
    assert.equal(await level('Neue'), 1);
    assert.equal((await t.members.Neue.post('/api/entry/create', { content: 'jetzt https://d.example/' })).status, 201);
    const row = modlogRows(t.board)[0]!;
    assert.deepEqual([row.action, row.reason, row.public], ['trust', '1', 0]);
    assert.equal(
      (await visitor(t.board).get('/api/modlog/0')).body.some((r: { action: string }) => r.action === 'trust'),
      false,
    );
    assert.equal((await t.members.Mia.post('/api/mod/user/Neue/trust', { level: 0 })).status, 200);
    assert.equal(await level('Neue'), 0);
    assertError(await t.members.Mia.post('/api/mod/user/Neue/trust', { level: 2 }), 400, 'input.invalid', 'level');
    assertError(await t.members.Mia.post('/api/mod/user/Mia/trust', { level: 0 }), 403, 'mod.target_moderator');
    assertError(await t.members.Neue.post('/api/mod/user/Erste/trust', { level: 0 }), 403, 'mod.required');
    assert.equal((await t.members.Mia.get('/api/user/info')).body.trust_level, 1);
  });
});

describe('level 0 edits under the caps of a create', () => {
  const t = useBoard({ users: ['Erste'], members: ['Lotte'], moderators: ['Mona'] });
  const links = (count: number) => Array.from({ length: count }, (_, i) => `https://s${i}.example/`).join(' ');
  const externalLinks = async (pid: number) =>
    (await visitor(t.board).get(`/e/${pid}`)).text.match(/class="external"/g)?.length ?? 0;

  test('past its first 10 minutes: a create with 3 links is refused, and so is an edit of a one-link entry to 31; the text and its page stay', async () => {
    t.board.clock.advance(601);
    const lotte = t.members.Lotte;
    const create = await lotte.post('/api/entry/create', { content: `drei ${links(3)}` });
    assertError(create, 429, 'rate.new_account', { exact: true });
    const text = 'Mein Link https://eins.example/';
    const pid = await post(lotte, text);
    const edit = await lotte.post(`/api/entry/${pid}/edit`, { content: `${text} ${links(30)}` });
    assertError(edit, 429, 'rate.new_account', { exact: true });
    assert.equal(edit.body.error.message, create.body.error.message, 'the refusal a create gets');
    assert.equal(edit.headers.get('retry-after'), create.headers.get('retry-after'));
    assert.equal(entryRow(t.board, pid)!.content, text, 'the stored text is unchanged');
    assert.equal(await externalLinks(pid), 1, 'its page shows the one link');
  });

  test('an edit that adds a link while the account is in its first 10 minutes is refused like a create, also beside a link it has', async () => {
    const greta = await member(t.board, 'Greta');
    // A moderator's level 1 lets a new account link; set back to 0, the first 10 minutes hold again.
    assert.equal((await t.members.Mona.post('/api/mod/user/Greta/trust', { level: 1 })).status, 200);
    const text = 'Erster Link https://eins.example/';
    const pid = await post(greta, text);
    assert.equal((await t.members.Mona.post('/api/mod/user/Greta/trust', { level: 0 })).status, 200);
    const create = await greta.post('/api/entry/create', { content: 'neu https://zwei.example/' });
    assertError(create, 429, 'rate.new_account', { exact: true });
    const edit = await greta.post(`/api/entry/${pid}/edit`, { content: `${text} https://zwei.example/` });
    assertError(edit, 429, 'rate.new_account', { exact: true });
    assert.equal(edit.body.error.message, create.body.error.message);
    assert.equal(entryRow(t.board, pid)!.content, text);
    assert.equal(await externalLinks(pid), 1);
  });
});

describe("BOARD_LIMITS=0 lifts the level's restrictions", () => {
  const t = useBoard({ env: limitsOff, users: ['Zuerst'], members: ['Frei'] });

  test('a level-0 account posts links at once and invites', async () => {
    for (let i = 0; i < 4; i++)
      assert.equal(
        (await t.members.Frei.post('/api/entry/create', { content: `Link ${i} https://e.example/${i}` })).status,
        201,
      );
    assert.equal((await t.members.Frei.post('/api/user/invites')).status, 201);
    t.board.clock.advance(day);
  });
});
