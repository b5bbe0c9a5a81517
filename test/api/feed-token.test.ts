import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tokenHash } from '../../lib/accounts/tokens.ts';
import {
  assertDocumented,
  assertError,
  day,
  limitsOff,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
} from '../helpers.ts';
import { atomEntries, parseAtom } from '../helpers/atom.ts';

/**
 * docs/API.md "POST /api/user/feed-token" and "Atom feeds": the private feed's token, what ends it,
 * what the log writes.
 */

async function newFeedUrl(client: Client): Promise<string> {
  const answer = await client.post('/api/user/feed-token');
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  assert.deepEqual(Object.keys(answer.body), ['url']);
  return answer.body.url;
}

describe('the private Atom feed of notifications', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });
  const path = (url: string) => url.slice(t.board.config.origin.length);

  test('POST /api/user/feed-token answers {url} on BOARD_ORIGIN; the feed lists replies and mentions; only the hash is stored', async () => {
    const { Anna, Bert } = t.members;
    const url = await newFeedUrl(Anna);
    assert.match(url, new RegExp(`^${t.board.config.origin}/n/[A-Za-z0-9_-]{43}\\.atom$`));
    const token = url.slice(url.lastIndexOf('/') + 1, -'.atom'.length);
    const top = await post(Anna, 'Hallo zusammen.');
    await post(Bert, 'Hallo Anna!', top);
    await post(Bert, 'Frag mal @anna.');
    const answer = await visitor(t.board).get(path(url));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
    assertDocumented(answer);
    assert.match(answer.headers.get('cache-control')!, /private/);
    const entries = atomEntries(parseAtom(answer.text));
    assert.deepEqual(
      entries.map((e) => e.title),
      ['Erwähnung von Bert: Frag mal @anna.', 'Antwort von Bert: Hallo Anna!'],
    );
    const stored = t.board.app.services.db.one<{ token_hash: Buffer }>(
      'SELECT token_hash FROM feed_tokens WHERE uid = ?',
      uidOf(t.board, 'Anna'),
    )!;
    assert.deepEqual(stored.token_hash, tokenHash(token));
    assert.ok(!JSON.stringify(t.board.app.services.db.all('SELECT * FROM feed_tokens')).includes(token));
  });

  test('the server log writes /n/… without the token', async () => {
    const url = await newFeedUrl(t.members.Anna);
    const token = url.slice(url.lastIndexOf('/') + 1);
    await visitor(t.board).get(path(url));
    await visitor(t.board).get('/n/unbekannt.atom');
    assert.ok(
      t.board.logs.some((line) => line.startsWith('GET /n/… 200')),
      'the request is logged',
    );
    assert.ok(!t.board.logs.some((line) => line.includes(token) || line.includes('unbekannt')));
  });

  test('a new token replaces the old; revoke ends it; unknown tokens are 404', async () => {
    const { Anna } = t.members;
    const old = await newFeedUrl(Anna);
    const current = await newFeedUrl(Anna);
    assert.notEqual(current, old);
    assert.equal((await visitor(t.board).get(path(old))).status, 404);
    assert.equal((await visitor(t.board).get(path(current))).status, 200);
    const revoked = await Anna.post('/api/user/feed-token/revoke');
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.body, { status: 'ok' });
    assertDocumented(revoked);
    assert.equal((await Anna.post('/api/user/feed-token/revoke')).status, 200, 'revoking again is 200');
    const ended = await visitor(t.board).get(path(current));
    assert.equal(ended.status, 404);
    assertDocumented(ended);
    for (const unknown of ['/n/x.atom', `/n/${'A'.repeat(43)}.atom`, `/n/${'A'.repeat(43)}`])
      assert.equal((await visitor(t.board).get(unknown)).status, 404, unknown);
    assertError(await visitor(t.board).post('/api/user/feed-token'), 401, 'auth.required');
    assertError(await visitor(t.board).post('/api/user/feed-token/revoke'), 401, 'auth.required');
  });

  test('a password change ends the token', async () => {
    const { Bert } = t.members;
    const url = await newFeedUrl(Bert);
    assert.equal((await visitor(t.board).get(path(url))).status, 200);
    const changed = await Bert.post('/api/user/password', {
      pass: password,
      pass1: 'ein ganz neues Passwort',
      pass2: 'ein ganz neues Passwort',
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await visitor(t.board).get(path(url))).status, 404);
  });

  test("a banned account's feed answers 404 while the ban lasts, and 200 again once it is lifted or has ended", async () => {
    const { Anna, Mia } = t.members;
    const url = await newFeedUrl(Anna);
    const feed = () => visitor(t.board).get(path(url));
    assert.equal((await feed()).status, 200);
    assert.equal((await Mia.post('/api/mod/user/Anna/ban', { reason: 'Spam' })).status, 200);
    const banned = await feed();
    assert.equal(banned.status, 404);
    assertDocumented(banned);
    assert.doesNotMatch(banned.text, /Benachrichtigungen/, 'nothing of the feed');
    assert.equal((await Mia.post('/api/mod/user/Anna/unban')).status, 200);
    assert.equal((await feed()).status, 200, 'the token was kept: the feed works again');
    assert.equal((await Mia.post('/api/mod/user/Anna/ban', { reason: 'Pause', days: 1 })).status, 200);
    assert.equal((await feed()).status, 404);
    t.board.clock.advance(day);
    assert.equal((await feed()).status, 200, 'an ended ban is no ban');
  });
});
