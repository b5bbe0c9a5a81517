import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { maxFetchedAncestors } from '../../lib/product.ts';
import { eventually, member, visitor, type Client, type TestBoard } from '../helpers.ts';
import { activityStreams, publicAddress, type FakeInstance } from '../helpers/fake-instance.ts';
import {
  federationWaitMs,
  inboxSettler,
  votesOf,
  startBoardAmongInstances,
  assertRemoteEdits,
} from '../helpers/federation.ts';

/**
 * docs/API.md "Remote entries" and "Votes and shares from elsewhere": what people on another server
 * do to the board, in the shapes Lemmy, NodeBB and Mastodon send. A fake instance on 127.0.0.1
 * serves its actors and posts and signs what they send; the board allows it. The inbox handles
 * activities one after another, so a marker vote sent last tells the test that all before it were
 * handled (what was dropped leaves nothing to wait for).
 */

const as = activityStreams;

describe('posts, votes, shares, edits and deletions from another server', () => {
  let board: TestBoard;
  let fake: FakeInstance;
  let refusedHost: string;
  let group: string;
  let anna: Client;
  let markerPid: number;
  /** Waits until every activity sent before is handled (test/helpers/federation.ts). */
  let settled: () => Promise<void>;
  const reader = () => visitor(board);
  const db = () => board.app.services.db;

  before(async () => {
    let fakes: FakeInstance[];
    let spareHosts: string[];
    ({ board, fakes, spareHosts } = await startBoardAmongInstances({ instances: [{}], spare: 1 }));
    [fake] = fakes as [FakeInstance];
    [refusedHost] = spareHosts as [string];
    group = `${board.config.origin}/ap/actor/board`;
    anna = await member(board, 'Anna');
    markerPid = await post(anna, 'Hier zählt nur die Markierung.');
    settled = inboxSettler(board, fake, markerPid);
  });
  after(async () => {
    await board?.close();
    await fake?.close();
  });

  async function post(author: Client, content: string, replyTo?: number): Promise<number> {
    board.clock.advance(11); // a member's create limit: 6 a minute
    const answer = await author.postMultipart('/api/entry/create', {
      content,
      ...(replyTo ? { reply_to: replyTo } : {}),
    });
    assert.equal(answer.status, 201, answer.text);
    return answer.body.pid as number;
  }

  const send = async (activity: Record<string, unknown>) => {
    const answer = await fake.send(`${board.url}/ap/inbox`, { '@context': as, ...activity });
    assert.equal(answer.status, 202, answer.body);
  };
  const entryPage = (pid: number) => `${board.config.origin}/e/${pid}`;
  const actor = (name: string) => fake.actorOf(name);

  const tally = (pid: number) => votesOf(board, pid);
  const entryJson = async (pid: number) => (await reader().get(`/api/entry/${pid}/thread`)).body.entry;
  const pidOfObject = (objectId: string) =>
    db().one<{ pid: number }>('SELECT pid FROM remote_entries WHERE object_id = ?', objectId)?.pid;

  /** A post on the fake instance as Lemmy and NodeBB write one, served there and returned. */
  function remotePost(author: string, id: string, fields: Record<string, unknown>): Record<string, unknown> {
    const object = { '@context': as, id, type: 'Note', attributedTo: actor(author), to: [publicAddress], ...fields };
    fake.serve(new URL(id).pathname, object);
    return object;
  }
  const create = (author: string, object: Record<string, unknown>) => ({
    id: `${object.id}/create`,
    type: 'Create',
    actor: actor(author),
    to: object.to,
    cc: object.cc,
    object,
  });

  test("a Lemmy Page to the board's Group is a top-level entry, its name the first line", async () => {
    const page = remotePost('lena', `http://${fake.host}/post/1`, {
      type: 'Page',
      name: 'Wer kennt einen guten Bäcker?',
      content: '<p>Ich suche einen in der Altstadt.</p>',
      to: [group, publicAddress],
      audience: group,
    });
    await send(create('lena', page));
    const pid = await eventually('the post is an entry', () => pidOfObject(page.id as string), federationWaitMs);
    const entry = await entryJson(pid);
    assert.equal(entry.reply_to, 0);
    assert.equal(entry.content, 'Wer kennt einen guten Bäcker?\n\nIch suche einen in der Altstadt.');
    assert.equal(entry.username, `@lena@${fake.host}`);
    const feed = (await reader().get('/api/entry/feed/0')).body;
    assert.ok(
      feed.some((e: { pid: number }) => e.pid === pid),
      'in the feed',
    );
  });

  test('a Note with the Group in cc is a top-level entry; one to nobody here brings nothing', async () => {
    const addressed = remotePost('max', `http://${fake.host}/notes/cc`, {
      content: '<p>Hallo Board, schöne Grüße!</p>',
      cc: [group],
    });
    const elsewhere = remotePost('max', `http://${fake.host}/notes/elsewhere`, {
      content: '<p>Nur für meine Leute.</p>',
    });
    await send(create('max', elsewhere));
    await send(create('max', addressed));
    await settled();
    assert.ok(pidOfObject(addressed.id as string), 'the addressed one came in');
    assert.equal(pidOfObject(elsewhere.id as string), undefined);
  });

  test("a Group's Announce of a Create, or of the post, is that post once; one from a server not admitted brings nothing", async () => {
    fake.setActorType('kategorie', 'Group');
    const first = remotePost('nina', `http://${fake.host}/notes/announced-create`, {
      content: '<p>Erst direkt, dann angekündigt.</p>',
      cc: [group],
    });
    // NodeBB: the category announces the Create it relays, embedded.
    await send(create('nina', first));
    await send({
      id: fake.nextId(),
      type: 'Announce',
      actor: actor('kategorie'),
      to: [publicAddress],
      object: create('nina', first),
    });
    // Lemmy: the community announces a post it has, by id; the board fetches it there.
    const onlyAnnounced = remotePost('nina', `http://${fake.host}/notes/announced-only`, {
      content: '<p>Nur angekündigt.</p>',
      audience: group,
    });
    await send({ id: fake.nextId(), type: 'Announce', actor: actor('kategorie'), object: onlyAnnounced.id });
    const foreign = `http://${refusedHost}/notes/1`;
    await send({
      id: fake.nextId(),
      type: 'Announce',
      actor: actor('kategorie'),
      object: {
        id: `${foreign}/create`,
        type: 'Create',
        actor: `http://${refusedHost}/users/mallory`,
        object: {
          id: foreign,
          type: 'Note',
          attributedTo: `http://${refusedHost}/users/mallory`,
          content: 'Spam',
          cc: [group],
        },
      },
    });
    await settled();
    assert.equal(db().value('SELECT count(*) FROM remote_entries WHERE object_id = ?', first.id), 1);
    assert.ok(pidOfObject(onlyAnnounced.id as string), 'the announced post came in');
    assert.equal(pidOfObject(foreign), undefined);
    assert.equal(db().value("SELECT count(*) FROM entries WHERE content = 'Spam'"), 0);
  });

  test('a reply below a reply the board lacks brings its chain in, fetched up to the bound', async () => {
    const root = await post(anna, 'Eine Frage an alle da draußen.');
    const base = `http://${fake.host}/chain`;
    let parent = entryPage(root);
    for (let i = 1; i <= 3; i++) {
      remotePost(i % 2 ? 'olga' : 'paul', `${base}/${i}`, { content: `<p>Glied ${i}</p>`, inReplyTo: parent });
      parent = `${base}/${i}`;
    }
    const last = remotePost('olga', `${base}/4`, { content: '<p>Glied 4</p>', inReplyTo: parent });
    await send(create('olga', last));
    const pid = await eventually('the reply is in', () => pidOfObject(last.id as string), federationWaitMs);
    const thread = (await reader().get(`/api/entry/${pid}/thread`)).body;
    assert.deepEqual(
      thread.ancestors.map((e: { content: string }) => e.content),
      ['Eine Frage an alle da draußen.', 'Glied 1', 'Glied 2', 'Glied 3'],
    );
    for (let i = 1; i <= 3; i++) assert.equal(fake.fetches(`/chain/${i}`), 1, `Glied ${i} fetched once`);
  });

  test('a chain past the bound brings nothing and fetches no more than the bound', async () => {
    const root = await post(anna, 'Noch eine Frage, diesmal tief.');
    const base = `http://${fake.host}/deep`;
    let parent = entryPage(root);
    const links = maxFetchedAncestors + 1;
    for (let i = 1; i <= links; i++) {
      remotePost('olga', `${base}/${i}`, { content: `<p>Tief ${i}</p>`, inReplyTo: parent });
      parent = `${base}/${i}`;
    }
    const last = remotePost('olga', `${base}/${links + 1}`, { content: '<p>Ganz unten</p>', inReplyTo: parent });
    await send(create('olga', last));
    await settled();
    assert.equal(db().value('SELECT count(*) FROM remote_entries WHERE object_id LIKE ?', `${base}/%`), 0);
    let fetched = 0;
    for (let i = 1; i <= links; i++) fetched += fake.fetches(`/deep/${i}`);
    assert.ok(fetched <= maxFetchedAncestors, `${fetched} fetches`);
    assert.equal(fake.fetches('/deep/1'), 0, 'the top of the chain is never reached');
  });

  test('Like and Dislike are votes, one per actor; Undo withdraws them, by id or embedded, and an id may come again', async () => {
    const pid = await post(anna, 'Stimmt ab!');
    const rosa = actor('rosa');
    // As Lemmy sends them (crates/apub/src/activities/voting): the post's id as object, no to/cc on the Undo.
    const like = {
      id: `http://${fake.host}/activities/like/1`,
      type: 'Like',
      actor: rosa,
      object: entryPage(pid),
      audience: group,
    };
    await send(like);
    await send({ ...like, id: `http://${fake.host}/activities/like/1b` }); // a second Like: still one vote
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 });
    await send({
      id: `http://${fake.host}/activities/dislike/1`,
      type: 'Dislike',
      actor: rosa,
      object: entryPage(pid),
    });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 1 }, 'the Dislike replaced the Like');
    const likeAgain = { ...like, id: `http://${fake.host}/activities/like/2` };
    await send(likeAgain);
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, 'a Dislike turned into a Like');
    await send({ id: `http://${fake.host}/activities/undo/1`, type: 'Undo', actor: rosa, object: likeAgain });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 0 }, 'the embedded Like undone');
    await send(likeAgain); // the same id once more, after its Undo
    await send({ id: fake.nextId(), type: 'Like', actor: actor('sven'), object: entryPage(pid) });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 2, no: 0 }, 'the id used again counts, and another actor too');
    await send({ id: `http://${fake.host}/activities/undo/2`, type: 'Undo', actor: rosa, object: likeAgain.id });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, 'undone by id alone');
  });

  test("a vote counts on a remote entry too; a banned actor's votes are dropped", async () => {
    const note = remotePost('tara', `http://${fake.host}/notes/voted`, {
      content: '<p>Stimmt auch hier ab.</p>',
      cc: [group],
    });
    await send(create('tara', note));
    const remotePid = await eventually('the post is in', () => pidOfObject(note.id as string), federationWaitMs);
    await send({ id: fake.nextId(), type: 'Like', actor: actor('ulla'), object: note.id });
    await settled();
    assert.deepEqual(await tally(remotePid), { yes: 1, no: 0 });
    const ulla = db().value<number>('SELECT uid FROM remote_actors WHERE id = ?', actor('ulla'))!;
    db().run('UPDATE users SET banned_until = -1 WHERE uid = ?', ulla);
    const pid = await post(anna, 'Und hier stimmt nur wer darf.');
    await send({ id: fake.nextId(), type: 'Dislike', actor: actor('ulla'), object: entryPage(pid) });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 0 });
  });

  test("an Announce of an entry by a person is a share, one per actor, withdrawn by Undo; a Group's is none", async () => {
    const pid = await post(anna, 'Teilt das!');
    assert.equal((await entryJson(pid)).shares, undefined);
    // As Mastodon boosts: the entry's id as object.
    const boost = {
      id: `http://${fake.host}/users/vera/statuses/9/activity`,
      type: 'Announce',
      actor: actor('vera'),
      object: entryPage(pid),
      to: [publicAddress],
    };
    await send(boost);
    await send({ ...boost, id: fake.nextId() });
    await send({ id: fake.nextId(), type: 'Announce', actor: actor('willi'), object: entryPage(pid) });
    await send({ id: fake.nextId(), type: 'Announce', actor: actor('kategorie'), object: entryPage(pid) });
    await settled();
    assert.equal((await entryJson(pid)).shares, 2);
    await send({
      id: fake.nextId(),
      type: 'Undo',
      actor: actor('willi'),
      object: { type: 'Announce', actor: actor('willi'), object: entryPage(pid) },
    });
    await settled();
    assert.equal((await entryJson(pid)).shares, 1, 'the embedded Announce undone');
  });

  test('Update and Delete by the author edit and delete its remote entry; anyone else’s are ignored', async () => {
    const pid = await post(anna, 'Antwortet mir!');
    const reply = remotePost('xaver', `http://${fake.host}/notes/edited`, {
      content: '<p>Erste Fassung</p>',
      inReplyTo: entryPage(pid),
    });
    await send(create('xaver', reply));
    const remotePid = await eventually('the reply is in', () => pidOfObject(reply.id as string), federationWaitMs);
    const update = (by: string, content: string) => ({
      id: fake.nextId(),
      type: 'Update',
      actor: actor(by),
      object: { ...reply, content, updated: new Date().toISOString() },
    });
    await assertRemoteEdits(
      board,
      remotePid,
      (by, html) => send(update(by === 'author' ? 'xaver' : 'yvonne', html)),
      settled,
    );
    await send({ id: fake.nextId(), type: 'Delete', actor: actor('yvonne'), object: reply.id });
    await settled();
    assert.equal((await entryJson(remotePid)).deleted, 0, 'another actor cannot delete it');
    // As Mastodon deletes: a Tombstone with the post's id.
    await send({
      id: fake.nextId(),
      type: 'Delete',
      actor: actor('xaver'),
      object: { id: reply.id, type: 'Tombstone' },
    });
    await settled();
    const entry = await entryJson(remotePid);
    assert.equal(entry.deleted, 1);
    assert.equal(entry.content, '');
    assert.equal((await entryJson(pid)).reply_count, 1, 'it keeps its place, as a member’s deletion does');
  });

  test('an activity of a type the board does not read is answered 202 and changes nothing', async () => {
    const before = db().value('SELECT count(*) FROM entries');
    await send({ id: fake.nextId(), type: 'Arrive', actor: actor('zoe'), object: entryPage(markerPid) });
    await settled();
    assert.equal(db().value('SELECT count(*) FROM entries'), before);
  });
});
