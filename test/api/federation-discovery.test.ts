import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { banUser } from '../../lib/moderation/accounts.ts';
import { permanentBan } from '../../lib/accounts/bans.ts';
import { imageFixture, member, password, startBoard, uidOf, visitor, type Client, type TestBoard } from '../helpers.ts';
import { federatedEnv, freePorts } from '../helpers/federation.ts';

/**
 * docs/API.md "Federation": what another server sees of a board: WebFinger, NodeInfo, the actors,
 * and /e/{pid} and /u/{name} answering the JSON-LD object to an ActivityPub Accept and the page
 * otherwise, with Vary: Accept on both, whichever way (the response cache's fast path or the
 * handler) the answer leaves. Each JSON is checked for the fields Mastodon (app/lib/activitypub),
 * Lemmy (crates/apub) and NodeBB (src/activitypub) read.
 */

const activityJson = { accept: 'application/activity+json' };
/** What Mastodon sends when someone pastes a link into its search. */
const mastodonAccept = {
  accept:
    'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams", text/html;q=0.1',
};
const browserAccept = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('a board as other servers see it (BOARD_FEDERATION=open)', () => {
  let board: TestBoard;
  let anna: Client;
  let origin: string;
  let host: string;
  before(async () => {
    const [port] = await freePorts(1);
    board = await startBoard(federatedEnv(port!, [port!], 'open'), { port });
    origin = board.config.origin;
    host = new URL(origin).host;
    anna = await member(board, 'Anna');
    await member(board, 'Bert');
    await anna.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', type: 'image/png', data: await imageFixture({ format: 'png' }) },
    ]);
  });
  after(() => board.close());

  const get = async (path: string, headers: Record<string, string> = activityJson) => {
    const answer = await fetch(`${board.url}${path}`, { headers });
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, text, json: () => JSON.parse(text) };
  };

  test("an entry's page answers its Note to an ActivityPub Accept and the page to a browser, both with Vary: Accept", async () => {
    const root = await anna.postMultipart('/api/entry/create', { content: 'Wurzel' });
    const reply = await anna.postMultipart('/api/entry/create', {
      content: 'Hallo @Bert,\nsiehe https://example.org/a?b=1 <b>fett</b>\n\nZweiter Absatz',
      reply_to: root.body.pid,
    });
    const pid = reply.body.pid as number;
    const page = await get(`/e/${pid}`, browserAccept);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('vary')!, /\bAccept\b/);
    // The page is in the response cache now; the fast path must not answer the object's request with it.
    for (const accept of [activityJson, mastodonAccept]) {
      const object = await get(`/e/${pid}`, accept);
      assert.equal(object.status, 200);
      assert.equal(object.headers.get('content-type'), 'application/activity+json');
      assert.match(object.headers.get('vary')!, /\bAccept\b/);
      const note = object.json();
      assert.equal(note.type, 'Note');
      assert.equal(note.id, `${origin}/e/${pid}`);
      assert.equal(note.url, `${origin}/e/${pid}`);
      assert.equal(note.attributedTo, `${origin}/ap/actor/${uidOf(board, 'Anna')}`);
      assert.equal(note.inReplyTo, `${origin}/e/${root.body.pid}`);
      assert.equal(note.context, `${origin}/e/${root.body.pid}`);
      assert.deepEqual(note.to, 'https://www.w3.org/ns/activitystreams#Public');
      assert.deepEqual(note.cc, [
        `${origin}/ap/actor/${uidOf(board, 'Anna')}/followers`,
        `${origin}/ap/actor/board`,
        `${origin}/ap/actor/${uidOf(board, 'Bert')}`,
      ]);
      assert.equal(
        note.content,
        `<p>Hallo <span class="h-card"><a href="${origin}/u/Bert" class="u-url mention">@<span>Bert</span></a></span>,<br>siehe <a href="https://example.org/a?b=1" rel="nofollow noopener noreferrer" target="_blank">https://example.org/a?b=1</a> &lt;b&gt;fett&lt;/b&gt;</p><p>Zweiter Absatz</p>`,
      );
      assert.deepEqual(note.tag, [
        { type: 'Mention', href: `${origin}/ap/actor/${uidOf(board, 'Bert')}`, name: `@Bert@${host}` },
      ]);
      assert.equal(typeof note.published, 'string');
    }
    const again = await get(`/e/${pid}`, browserAccept);
    assert.match(again.headers.get('content-type')!, /^text\/html/, 'the page again after the object');
  });

  test('a deleted entry is a Tombstone (410); an unknown one is the 404 page', async () => {
    const created = await anna.postMultipart('/api/entry/create', { content: 'Gleich weg' });
    assert.equal((await anna.post(`/api/entry/${created.body.pid}/delete`)).status, 200);
    const gone = await get(`/e/${created.body.pid}`);
    assert.equal(gone.status, 410);
    assert.equal(gone.json().type, 'Tombstone');
    assert.match(gone.json().formerType, /Note$/);
    assert.equal((await get('/e/999999')).status, 404);
  });

  test('a profile answers its Person: handle, name, avatar, inboxes, collections and the RSA key Mastodon verifies with', async () => {
    const answer = await get('/u/Anna', mastodonAccept);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('vary')!, /\bAccept\b/);
    const person = answer.json();
    const id = `${origin}/ap/actor/${uidOf(board, 'Anna')}`;
    assert.equal(person.type, 'Person');
    assert.equal(person.id, id);
    assert.equal(person.preferredUsername, 'Anna');
    assert.equal(person.name, 'Anna');
    assert.equal(person.url, `${origin}/u/Anna`);
    assert.equal(person.inbox, `${id}/inbox`);
    assert.equal(person.outbox, `${id}/outbox`);
    assert.equal(person.followers, `${id}/followers`);
    assert.equal(person.endpoints.sharedInbox, `${origin}/ap/inbox`);
    assert.equal(person.publicKey.id, `${id}#main-key`);
    assert.equal(person.publicKey.owner, id);
    assert.match(person.publicKey.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
    assert.equal(person.icon.type, 'Image');
    assert.match(person.icon.url, new RegExp(`^${origin}/static/media/a/`));
    assert.equal(person.icon.mediaType, 'image/png');
    const page = await get('/u/Anna', browserAccept);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('vary')!, /\bAccept\b/);
  });

  test('the Group is @board@host, and WebFinger finds it and each person by handle', async () => {
    const group = (await get('/ap/actor/board')).json();
    assert.equal(group.type, 'Group');
    assert.equal(group.preferredUsername, 'board');
    assert.equal(group.name, host);
    assert.match(group.publicKey.publicKeyPem, /BEGIN PUBLIC KEY/);
    const finger = await get(`/.well-known/webfinger?resource=acct:board@${host}`, {});
    assert.equal(finger.status, 200);
    assert.deepEqual(
      finger.json().links.find((link: { rel: string }) => link.rel === 'self'),
      { rel: 'self', href: `${origin}/ap/actor/board`, type: 'application/activity+json' },
    );
    const anna = (await get(`/.well-known/webfinger?resource=acct:anna@${host}`, {})).json();
    assert.equal(
      anna.links.find((link: { rel: string }) => link.rel === 'self').href,
      `${origin}/ap/actor/${uidOf(board, 'Anna')}`,
    );
    assert.equal((await get(`/.well-known/webfinger?resource=acct:nobody@${host}`, {})).status, 404);
  });

  test('NodeInfo 2.1 counts users and entries as /api/stats does', async () => {
    const links = (await get('/.well-known/nodeinfo', {})).json();
    assert.equal(links.links[0].href, `${origin}/nodeinfo/2.1`);
    const info = (await get('/nodeinfo/2.1', {})).json();
    const stats = (await visitor(board).get('/api/stats')).body;
    assert.equal(info.software.name, 'board');
    assert.deepEqual(info.protocols, ['activitypub']);
    assert.equal(info.usage.users.total, stats.users);
    assert.equal(info.usage.localPosts, stats.entries);
  });

  test("a banned account's actor answers as its profile does; a deleted account's actor is gone (410)", async () => {
    await member(board, 'Carl');
    banUser(
      board.app.services.db,
      uidOf(board, 'Carl'),
      { until: permanentBan, reason: 'Spam', purge: false },
      0,
      board.clock.now(),
    );
    assert.equal((await get('/u/Carl')).json().type, 'Person');
    const dora = await member(board, 'Dora');
    const doraUid = uidOf(board, 'Dora');
    assert.equal((await dora.post('/api/user/delete', { pass1: password })).status, 200);
    const gone = await get(`/ap/actor/${doraUid}`);
    assert.equal(gone.status, 410);
    assert.equal(gone.json().type, 'Tombstone');
    assert.equal((await get('/ap/actor/999999')).status, 404);
  });
});

describe('BOARD_FEDERATION=off', () => {
  let board: TestBoard;
  before(async () => {
    board = await startBoard();
  });
  after(() => board.close());

  test('no federation path answers, a page stays a page whatever the Accept, and nothing is queued', async () => {
    const anna = await member(board, 'Anna');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Nur hier' });
    assert.equal((await anna.post(`/api/entry/${created.body.pid}/vote`, { mode: 'yes' })).status, 200);
    for (const path of [
      '/.well-known/webfinger?resource=acct:board@127.0.0.1',
      '/.well-known/nodeinfo',
      '/nodeinfo/2.1',
      '/ap/actor/board',
      '/ap/actor/1/outbox',
      '/ap/actor/1/followers',
    ]) {
      const answer = await fetch(`${board.url}${path}`, { headers: activityJson });
      assert.equal(answer.status, 404, path);
      await answer.body?.cancel();
    }
    for (const path of ['/ap/inbox', '/ap/actor/board/inbox']) {
      const answer = await fetch(`${board.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: '{}',
      });
      assert.equal(answer.status, 404, path);
      await answer.body?.cancel();
    }
    const page = await fetch(`${board.url}/e/${created.body.pid}`, { headers: activityJson });
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.doesNotMatch(page.headers.get('vary') ?? '', /Accept/);
    await page.body?.cancel();
    assert.equal((await anna.get('/api/user/federation')).status, 404);
    assert.equal((await anna.get('/api/u/Anna/info')).body.fediverse, undefined);
    assert.equal((await anna.get('/api/auth/whoami')).body.fediverse, undefined);
    assert.equal(board.app.services.db.value('SELECT count(*) FROM federation_outbox'), 0);
    assert.equal(board.app.services.db.value('SELECT count(*) FROM federation_keys'), 0);
  });
});
