import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
 * docs/API.md "Remote entries": what a Lemmy community relays, each activity in it wrapped in an
 * `Announce` by the community (FEP-1b12), in the shapes of Lemmy's crates/apub test data. Three fake
 * instances on 127.0.0.1: the community's server (`lemmy`), another one its members come from
 * (`ds9`), both allowed, and one the board does not admit (`refused`), which serves what it is
 * asked for all the same. A marker vote sent last tells the test that all before it were handled.
 */

const as = activityStreams;

describe('votes, edits and deletions a Group relays', () => {
  let board: TestBoard;
  let lemmy: FakeInstance;
  let ds9: FakeInstance;
  let refused: FakeInstance;
  let community: string;
  let anna: Client;
  let markerPid: number;
  /** Waits until every activity sent before is handled (test/helpers/federation.ts). */
  let settled: () => Promise<void>;
  let serial = 0;
  const reader = () => visitor(board);
  const db = () => board.app.services.db;

  before(async () => {
    let fakes: FakeInstance[];
    // lemmy and ds9 allowed, refused not.
    ({ board, fakes } = await startBoardAmongInstances({ instances: [{}, {}, {}], allowed: 2 }));
    [lemmy, ds9, refused] = fakes as [FakeInstance, FakeInstance, FakeInstance];
    lemmy.setActorType('gemeinde', 'Group');
    community = lemmy.actorOf('gemeinde');
    anna = await member(board, 'Anna');
    markerPid = await post('Hier zählt nur die Markierung.');
    settled = inboxSettler(board, lemmy, markerPid);
  });
  after(async () => {
    await board?.close();
    for (const fake of [lemmy, ds9, refused]) await fake?.close();
  });

  async function post(content: string): Promise<number> {
    board.clock.advance(11); // a member's create limit: 6 a minute
    const answer = await anna.postMultipart('/api/entry/create', { content });
    assert.equal(answer.status, 201, answer.text);
    return answer.body.pid as number;
  }

  /** POSTs `activity` to the board's shared inbox, signed by `from` as its actor. */
  const send = async (from: FakeInstance, activity: Record<string, unknown>) => {
    const answer = await from.send(`${board.url}/ap/inbox`, { '@context': as, ...activity });
    assert.equal(answer.status, 202, answer.body);
  };
  /** The community's `Announce` of `activity`, embedded, as Lemmy's announce.rs sends it. */
  const relayed = (activity: Record<string, unknown>) => ({
    id: `http://${lemmy.host}/activities/announce/${String(activity.type).toLowerCase()}/${++serial}`,
    type: 'Announce',
    actor: community,
    to: [publicAddress],
    cc: [`${community}/followers`],
    object: activity,
  });
  const relay = (activity: Record<string, unknown>) => send(lemmy, relayed(activity));
  const entryPage = (pid: number) => `${board.config.origin}/e/${pid}`;
  /** A vote as Lemmy's voting/like_note.json: the entry's id as object, the community as audience. */
  const vote = (fake: FakeInstance, name: string, pid: number, type: 'Like' | 'Dislike' = 'Like') => ({
    id: `http://${fake.host}/activities/${type.toLowerCase()}/${++serial}`,
    type,
    actor: fake.actorOf(name),
    object: entryPage(pid),
    audience: community,
  });
  /** Lemmy's voting/undo_like_note.json: the vote embedded, no to/cc. */
  const undo = (activity: Record<string, unknown>) => ({
    id: `http://${lemmy.host}/activities/undo/${++serial}`,
    type: 'Undo',
    actor: activity.actor,
    object: activity,
    audience: community,
  });

  const tally = (pid: number) => votesOf(board, pid);
  const entryJson = async (pid: number) => (await reader().get(`/api/entry/${pid}/thread`)).body.entry;

  test("a community relays a member's Like: it counts, once with the same Like sent directly, and the relayed Undo withdraws it", async () => {
    const pid = await post('Stimmt in der Gemeinde ab!');
    const like = vote(lemmy, 'lena', pid);
    await relay(like);
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 });
    await send(lemmy, like);
    await relay({ ...like, id: `http://${lemmy.host}/activities/like/${++serial}` });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, 'one vote per actor and entry');
    await relay(undo(like));
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 0 }, 'the relayed Undo withdrew it');
  });

  test('a relayed Dislike is a no vote', async () => {
    const pid = await post('Gefällt euch das nicht?');
    await relay(vote(lemmy, 'lena', pid, 'Dislike'));
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 1 });
  });

  test("a relayed Update or Delete by the remote entry's author edits or deletes it; anyone else's changes nothing", async () => {
    const pid = await post('Antwortet mir aus der Gemeinde!');
    // A Lemmy comment, relayed as the community relays it: Announce of the Create.
    const comment = {
      id: `http://${lemmy.host}/comment/1`,
      type: 'Note',
      attributedTo: lemmy.actorOf('lena'),
      to: [publicAddress],
      cc: [community],
      audience: community,
      inReplyTo: entryPage(pid),
      content: '<p>Erste Fassung</p>',
    };
    lemmy.serve('/comment/1', { '@context': as, ...comment });
    await relay({
      id: `http://${lemmy.host}/activities/create/${++serial}`,
      type: 'Create',
      actor: comment.attributedTo,
      to: [publicAddress],
      cc: [community],
      object: comment,
    });
    const remotePid = await eventually(
      'the comment is in',
      () => db().one<{ pid: number }>('SELECT pid FROM remote_entries WHERE object_id = ?', comment.id)?.pid,
      federationWaitMs,
    );
    // Lemmy's create_or_update/update_page.json: the whole object, embedded.
    const update = (by: string, content: string) => ({
      id: `http://${lemmy.host}/activities/update/${++serial}`,
      type: 'Update',
      actor: lemmy.actorOf(by),
      to: [publicAddress],
      cc: [community],
      audience: community,
      object: { ...comment, content, updated: new Date().toISOString() },
    });
    await assertRemoteEdits(
      board,
      remotePid,
      (by, html) => relay(update(by === 'author' ? 'lena' : 'mallory', html)),
      settled,
    );
    // Lemmy's deletion/delete_page.json: the object's id.
    const remove = (by: string) => ({
      id: `http://${lemmy.host}/activities/delete/${++serial}`,
      type: 'Delete',
      actor: lemmy.actorOf(by),
      to: [publicAddress],
      cc: [community],
      audience: community,
      object: comment.id,
    });
    await relay(remove('mallory'));
    await settled();
    assert.equal((await entryJson(remotePid)).deleted, 0, 'another actor cannot delete it');
    await relay(remove('lena'));
    await settled();
    const entry = await entryJson(remotePid);
    assert.equal(entry.deleted, 1);
    assert.equal(entry.content, '');
  });

  test('a relayed Like from an instance not admitted or from a banned actor counts nothing', async () => {
    const pid = await post('Wer darf hier abstimmen?');
    const foreign = vote(refused, 'rolf', pid);
    refused.serve(new URL(foreign.id).pathname, { '@context': as, ...foreign });
    await relay(foreign);
    // bert's users row comes with his first vote, elsewhere; then a moderator bans him.
    await send(lemmy, vote(lemmy, 'bert', await post('Bert war hier.')));
    await settled();
    const bert = db().value<number>('SELECT uid FROM remote_actors WHERE id = ?', lemmy.actorOf('bert'));
    assert.ok(bert, 'bert is known');
    db().run('UPDATE users SET banned_until = -1 WHERE uid = ?', bert);
    await relay(vote(lemmy, 'bert', pid));
    await relay(vote(lemmy, 'carla', pid));
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, "carla's vote alone");
    assert.equal(refused.fetches(new URL(foreign.id).pathname), 0, 'nothing asked of an instance not admitted');
  });

  test("a relayed Like from another server than the Group's is fetched from its own and counted; unless it is not there or not the same", async () => {
    const pid = await post('Stimmen von überall.');
    const served = vote(ds9, 'dora', pid);
    ds9.serve(new URL(served.id).pathname, { '@context': as, ...served });
    await relay(served);
    const missing = vote(ds9, 'dirk', pid); // ds9 answers 404 for it
    await relay(missing);
    const swapped = vote(ds9, 'dieter', pid); // ds9 has it as doris's
    ds9.serve(new URL(swapped.id).pathname, { '@context': as, ...swapped, actor: ds9.actorOf('doris') });
    await relay(swapped);
    // The community's server cannot speak for ds9's people, not even by serving it itself.
    const spoken = { ...vote(ds9, 'dana', pid), id: `http://${lemmy.host}/activities/like/${++serial}` };
    lemmy.serve(new URL(spoken.id).pathname, { '@context': as, ...spoken });
    await relay(spoken);
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, "dora's vote alone");
    assert.ok(ds9.fetches(new URL(served.id).pathname) >= 1, 'fetched from its own server');
    assert.ok(ds9.fetches(new URL(missing.id).pathname) >= 1, 'the missing one was asked for');
  });

  test("an Announce of a Like by a person is not unwrapped, nor a share; a Group's Announce of an Announce is not followed", async () => {
    const pid = await post('Wer teilt, wer stimmt?');
    const like = vote(lemmy, 'lena', pid);
    await send(lemmy, { ...relayed(like), actor: lemmy.actorOf('paula') });
    const share = {
      id: `http://${lemmy.host}/activities/announce/${++serial}`,
      type: 'Announce',
      actor: lemmy.actorOf('paul'),
    };
    await relay({ ...share, object: entryPage(pid) });
    await relay({
      id: `http://${lemmy.host}/activities/arrive/${++serial}`,
      type: 'Arrive',
      actor: lemmy.actorOf('lena'),
      object: entryPage(pid),
    });
    await settled();
    assert.deepEqual(await tally(pid), { yes: 0, no: 0 });
    assert.equal((await entryJson(pid)).shares, undefined);
    await relay(like);
    await settled();
    assert.deepEqual(await tally(pid), { yes: 1, no: 0 }, "the Group's relay of the same Like counts");
    assert.equal((await entryJson(pid)).shares, undefined);
  });
});
