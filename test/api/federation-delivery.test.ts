import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, member, moderator, password, uidOf, visitor, type Client, type TestBoard } from '../helpers.ts';
import {
  federationWaitMs,
  groupFollows,
  groupUnfollows,
  lookUpActor,
  startFederatedBoards,
} from '../helpers/federation.ts';

/**
 * Two boards on 127.0.0.1 (docs/API.md "Federation"): B's Group follows A's Group and A's Anna,
 * A accepts, and what happens on A (a create, an edit, votes, a bump, a deletion, a moderator's
 * removal) arrives at B's inbox signed, and B's Fedify verifies each signature before its inbox
 * takes it. A runs in allowlist mode with B allowed, the only instance it talks to.
 */

describe('a board followed from another board', () => {
  let a: TestBoard;
  let b: TestBoard;
  let boards: TestBoard[];
  let anna: Client;
  let bert: Client;
  const received: Record<string, unknown>[] = [];
  before(async () => {
    boards = await startFederatedBoards(2, {
      federation: (i) => (i === 1 ? { received: (activity) => received.push(activity) } : {}),
    });
    [a, b] = boards as [TestBoard, TestBoard];
    anna = await member(a, 'Anna');
    bert = await member(a, 'Bert');
  });
  after(async () => {
    for (const board of boards ?? []) await board.close();
  });

  /** The activities B took of this type, newest last. */
  const takenOf = (type: string) => received.filter((activity) => activity.type === type);
  const objectOf = (activity: Record<string, unknown>) => activity.object as Record<string, unknown>;

  test("B follows A's Group and Anna (found by her profile's address); A accepts both, and B hears the Accepts", async () => {
    const group = await lookUpActor(b, `${a.url}/ap/actor/board`);
    const person = await lookUpActor(b, `${a.url}/u/Anna`);
    assert.equal(person.id?.href, `${a.url}/ap/actor/${uidOf(a, 'Anna')}`);
    groupFollows(b, group);
    groupFollows(b, person);
    const followers = await eventually(
      'A keeps both follows',
      () => {
        const rows = a.app.services.db.all<{ target_uid: number; actor_id: string; host: string }>(
          'SELECT target_uid, actor_id, host FROM federation_followers ORDER BY target_uid',
        );
        return rows.length === 2 ? rows : undefined;
      },
      federationWaitMs,
    );
    assert.deepEqual(
      followers.map((row) => [row.target_uid, row.actor_id, row.host]),
      [
        [0, `${b.url}/ap/actor/board`, new URL(b.url).host],
        [uidOf(a, 'Anna'), `${b.url}/ap/actor/board`, new URL(b.url).host],
      ],
    );
    await eventually(
      'B has both Accepts',
      () =>
        b.app.services.db.value('SELECT count(*) FROM federation_following WHERE accepted_at > 0') === 2 ? true : 0,
      federationWaitMs,
    );
    const answer = await fetch(`${a.url}/ap/actor/board/followers`, {
      headers: { accept: 'application/activity+json' },
    });
    const count = (await answer.json()) as { totalItems: number; orderedItems?: unknown };
    assert.equal(count.totalItems, 1);
    assert.equal(count.orderedItems, undefined, 'the list of followers is not published');
  });

  test('Anna sees her handle and her follower elsewhere in her settings; her profile tells how to follow her', async () => {
    const handle = `@Anna@${new URL(a.url).host}`;
    const own = await anna.get('/api/user/federation');
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, { handle, followers: 1 });
    const info = await visitor(a).get('/api/u/Anna/info');
    assert.equal(info.body.fediverse, handle);
    // The front end learns from whoami that the board federates, before it asks for the rest.
    assert.equal((await anna.get('/api/auth/whoami')).body.fediverse, handle);
    assert.equal((await anna.get('/api/user/info')).body.fediverse, handle);
    assert.equal((await visitor(a).get('/api/user/federation')).status, 401);
  });

  test("Anna's new entry reaches B as her Create and the Group's Announces, signed and verified", async () => {
    const created = await anna.postMultipart('/api/entry/create', {
      content: 'Hallo Fediverse, siehe https://example.org/x',
    });
    assert.equal(created.status, 201);
    const note = `${a.url}/e/${created.body.pid}`;
    const create = await eventually(
      'the Create at B',
      () => takenOf('Create').find((x) => objectOf(x).id === note),
      federationWaitMs,
    );
    assert.equal(create.actor, `${a.url}/ap/actor/${uidOf(a, 'Anna')}`);
    assert.match(String(objectOf(create).content), /<a href="https:\/\/example\.org\/x"/);
    await eventually(
      'the Group boosts the Note',
      () =>
        takenOf('Announce').find(
          (x) => x.actor === `${a.url}/ap/actor/board` && (x.object === note || objectOf(x).id === note),
        ),
      federationWaitMs,
    );
    const delivered = a.app.services.db.one<{ delivered: number; signature: string }>(
      'SELECT delivered, signature FROM federation_instances WHERE host = ?',
      new URL(b.url).host,
    );
    assert.ok(delivered && delivered.delivered >= 3, 'each activity went once to B’s shared inbox');
    assert.equal(delivered.signature, 'rfc9421', 'B took the first knock');
  });

  test('an edit, votes, a withdrawn vote, a bump and a deletion reach B as Update, Like, Dislike, Undo, Announce and Delete', async () => {
    const created = await anna.postMultipart('/api/entry/create', { content: 'Erste Fassung' });
    const pid = created.body.pid as number;
    const note = `${a.url}/e/${pid}`;
    const bertActor = `${a.url}/ap/actor/${uidOf(a, 'Bert')}`;
    assert.equal((await anna.post(`/api/entry/${pid}/edit`, { content: 'Zweite Fassung' })).status, 200);
    const update = await eventually(
      'the Update at B',
      () => takenOf('Update').find((x) => objectOf(x).id === note),
      federationWaitMs,
    );
    assert.match(String(objectOf(update).content), /Zweite Fassung/);
    // Bert's votes reach B through A's Group (B follows the Group, not Bert).
    assert.equal((await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' })).status, 200);
    const liked = (x: Record<string, unknown>) =>
      x.type === 'Announce' && objectOf(x)?.type === 'Like' && objectOf(x).actor === bertActor;
    const like = objectOf(await eventually('the Like at B', () => received.find(liked), federationWaitMs));
    assert.equal(like.object, note);
    assert.equal((await bert.post(`/api/entry/${pid}/vote`, { mode: 'no' })).status, 200);
    const undo = await eventually(
      'the Undo of the Like',
      () => received.find((x) => x.type === 'Announce' && objectOf(x)?.type === 'Undo'),
      federationWaitMs,
    );
    assert.equal((objectOf(objectOf(undo)) as Record<string, unknown>).id, like.id, 'the Undo names the Like');
    await eventually(
      'the Dislike',
      () => received.find((x) => x.type === 'Announce' && objectOf(x)?.type === 'Dislike'),
      federationWaitMs,
    );
    assert.equal((await bert.post(`/api/entry/${pid}/bump`)).status, 200);
    await eventually(
      "Bert's bump as an Announce",
      () =>
        received.find(
          (x) => x.type === 'Announce' && objectOf(x)?.type === 'Announce' && objectOf(x).actor === bertActor,
        ),
      federationWaitMs,
    );
    assert.equal((await anna.post(`/api/entry/${pid}/delete`)).status, 200);
    const deletion = await eventually(
      'the Delete at B',
      () => takenOf('Delete').find((x) => (objectOf(x) as Record<string, unknown>).id === note),
      federationWaitMs,
    );
    assert.equal(objectOf(deletion).type, 'Tombstone');
  });

  test("a moderator's removal sends the Delete too", async () => {
    const mia = await moderator(a, 'Mia');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Werbung für Schuhe' });
    const note = `${a.url}/e/${created.body.pid}`;
    await eventually('the Create at B', () => takenOf('Create').find((x) => objectOf(x).id === note), federationWaitMs);
    assert.equal((await mia.post(`/api/mod/entry/${created.body.pid}/remove`, { reason: 'Werbung' })).status, 200);
    await eventually('the Delete at B', () => takenOf('Delete').find((x) => objectOf(x).id === note), federationWaitMs);
  });

  test("a deleted account's followers get the Delete of its Person, and its follows end", async () => {
    const cora = await member(a, 'Cora');
    const coraUid = uidOf(a, 'Cora');
    const coraActor = `${a.url}/ap/actor/${coraUid}`;
    groupFollows(b, await lookUpActor(b, coraActor));
    await eventually(
      'B follows Cora',
      () =>
        b.app.services.db.value(
          'SELECT count(*) FROM federation_following WHERE actor_id = ? AND accepted_at > 0',
          coraActor,
        ) === 1 || undefined,
      federationWaitMs,
    );
    assert.equal((await cora.post('/api/user/delete', { pass1: password })).status, 200);
    const deletion = await eventually(
      'the Delete of the Person at B',
      () => takenOf('Delete').find((x) => x.actor === coraActor && x.object === coraActor),
      federationWaitMs,
    );
    assert.equal(deletion.actor, coraActor);
    await eventually(
      'A forgets the follows of Cora',
      () =>
        a.app.services.db.value('SELECT count(*) FROM federation_followers WHERE target_uid = ?', coraUid) === 0 ||
        undefined,
      federationWaitMs,
    );
  });

  test('an unsigned POST to B’s inbox is refused (401) before anything is queued', async () => {
    const forged = await fetch(`${b.url}/ap/inbox`, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${a.url}/ap/activity/forged`,
        type: 'Create',
        actor: `${a.url}/ap/actor/board`,
        object: { id: `${a.url}/e/999`, type: 'Note', content: 'gefälscht' },
      }),
    });
    assert.equal(forged.status, 401);
    assert.equal(b.app.services.db.value("SELECT count(*) FROM fedify_queue WHERE message LIKE '%forged%'"), 0);
  });

  test("B's Undo of its Follow of Anna ends it at A; the Group's follow stays", async () => {
    groupUnfollows(b, `${a.url}/ap/actor/${uidOf(a, 'Anna')}`);
    await eventually(
      'A forgets the follow of Anna',
      () =>
        a.app.services.db.value('SELECT count(*) FROM federation_followers WHERE target_uid = ?', uidOf(a, 'Anna')) ===
        0
          ? true
          : undefined,
      federationWaitMs,
    );
    assert.equal(a.app.services.db.value('SELECT count(*) FROM federation_followers WHERE target_uid = 0'), 1);
  });
});
