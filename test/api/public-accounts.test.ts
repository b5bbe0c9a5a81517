import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertError, password, post, uidOf, useBoard, visitor, type TestBoard } from '../helpers.ts';

/**
 * docs/API.md "Users": an application, waiting or rejected, is no public account. Every surface
 * that shows an account by name answers it as it answers an unknown name (404), until a moderator
 * approves it; a banned account stays public with its ban. Default limits.
 */

const answer = 'Ich lese hier seit Wochen mit und möchte mitdiskutieren.';

async function apply(board: TestBoard, user: string): Promise<void> {
  const sent = await visitor(board).post('/api/auth/newuser', {
    user,
    pass1: password,
    pass2: password,
    application: answer,
  });
  assert.equal(sent.status, 202, sent.text);
}

/** Every public surface of a name: the status each answered, and whether any page showed "Mitglied seit". */
async function surfaces(board: TestBoard, name: string) {
  const path = encodeURIComponent(name);
  const anyone = visitor(board);
  const impressions = async () => (await anyone.get('/api/stats/detail')).body.impressions_total as number;
  const viewsBefore = await impressions();
  const pages = {
    profile: await anyone.get(`/u/${path}`),
    profilePage2: await anyone.get(`/u/${path}?seite=2`),
    atom: await anyone.get(`/u/${path}/feed.atom`),
    searchPage: await anyone.get(`/suche?q=Hallo&user=${path}`),
  };
  const api = {
    info: await anyone.get(`/api/u/${path}/info`),
    feed: await anyone.get(`/api/u/${path}/feed/0`),
    search: await anyone.get(`/api/search/0?q=Hallo&user=${path}`),
  };
  // The page GETs count a view as SPEC says, and only a public account's profile answers 200.
  const counted = (await impressions()) > viewsBefore;
  return {
    statuses: Object.fromEntries(Object.entries({ ...pages, ...api }).map(([key, got]) => [key, got.status])),
    api,
    counted,
    memberSince: Object.values(pages).some((page) => page.text.includes('Mitglied seit')),
  };
}

const notFound = { profile: 404, profilePage2: 404, atom: 404, searchPage: 404, info: 404, feed: 404, search: 404 };

describe('applications are no public accounts', () => {
  const t = useBoard({ members: ['Ida'], moderators: ['Mia'] });
  before(async () => {
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
    for (const name of ['Wartend', 'Abgelehnt', 'Bald Frei']) await apply(t.board, name);
    assert.equal((await t.members.Mia.post('/api/mod/applications/Abgelehnt/reject', { reason: 'Nein' })).status, 200);
  });

  for (const name of ['Wartend', 'Abgelehnt']) {
    test(`${name}: every surface answers 404 as for an unknown name, and no view is counted`, async () => {
      const seen = await surfaces(t.board, name);
      assert.deepEqual(seen.statuses, notFound);
      for (const got of Object.values(seen.api)) assertError(got, 404, 'user.not_found');
      assert.equal(seen.counted, false, 'the beacon counts no impression');
      assert.equal(seen.memberSince, false);
      assert.deepEqual(await surfaces(t.board, name), seen, 'asked again (the fast path): the same');
    });
  }

  test('nobody can mute an application: 404 user.not_found', async () => {
    assertError(await t.members.Ida.post('/api/user/mute', { user: 'Wartend' }), 404, 'user.not_found');
  });

  test('a mention of an application notifies nobody', async () => {
    await post(t.members.Ida, 'Hallo @Wartend und @Abgelehnt, willkommen!');
    const { db } = t.board.app.services;
    for (const name of ['Wartend', 'Abgelehnt'])
      assert.equal(db.value('SELECT count(*) FROM notifications WHERE uid = ?', uidOf(t.board, name)), 0, name);
  });

  test('once approved, the account is public on every surface', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/applications/Bald%20Frei/approve')).status, 200);
    const seen = await surfaces(t.board, 'Bald Frei');
    assert.deepEqual(seen.statuses, Object.fromEntries(Object.keys(notFound).map((key) => [key, 200])));
    assert.equal(seen.counted, true);
    assert.equal(seen.memberSince, true);
    assert.equal((await t.members.Ida.post('/api/user/mute', { user: 'Bald Frei' })).status, 200);
  });

  test('a banned account stays public: its profile says so', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/user/Ida/ban', { reason: 'Pause', days: 2 })).status, 200);
    const seen = await surfaces(t.board, 'Ida');
    assert.equal(seen.statuses.profile, 200);
    assert.equal(seen.statuses.info, 200);
    assert.equal(typeof seen.api.info.body.banned_until, 'number');
    assert.match((await visitor(t.board).get('/u/Ida')).text, /Dieses Konto ist gesperrt bis/);
  });
});
