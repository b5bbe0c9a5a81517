import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { signRequest } from '@fedify/fedify';
import { actorKeyPairs } from '../../lib/federation/keys.ts';
import { eventually, imageFixture, member, moderator, visitor, type Client, type TestBoard } from '../helpers.ts';
import { federationWaitMs, startFederatedBoards } from '../helpers/federation.ts';
import { imageGate } from '../helpers/image-gate.ts';

/**
 * Issue 42's two boards on loopback that allow each other (docs/API.md "Remote entries"). Board B
 * plays the other server: its member Bert's activities are signed with Bert's own key as B keeps
 * it (lib/federation/keys.ts), so A verifies them against B's real actor document. A reply from B
 * is in A's thread under Bert's handle, tells the parent's author and is found by A's search; a
 * moderator's removal on A holds against a second delivery; a ban on A holds against an activity
 * already in flight (held at A's image gate, past the fetch and before the write).
 *
 * Below, another member of B votes on A's entry and withdraws the votes (Like, Dislike, Undo in
 * B's own shapes), edits and deletes a reply (Update and Delete whose objects are B's own answers
 * for the entry); and a vote whose author A bans while it is in flight (held at A's image gate,
 * fetching the new author's avatar) is dropped.
 */

describe('two boards: a member of B answers on A', () => {
  const gate = imageGate();
  let a: TestBoard;
  let b: TestBoard;
  let anna: Client;
  let mod: Client;
  let bert: Client;
  let bertUid: number;
  let bertActor: string;
  let bertHandle: string;
  let rootPid: number;
  let serial = 0;
  /** Another member of B: she votes, edits and deletes (Bert is banned on A by then). */
  let berit: MemberOfB;

  before(async () => {
    const boards = await startFederatedBoards(2, { start: (i) => (i === 0 ? { images: gate.images } : {}) });
    [a, b] = [boards[0]!, boards[1]!];
    anna = await member(a, 'Anna');
    mod = await moderator(a, 'Mona');
    const root = await anna.postMultipart('/api/entry/create', { content: 'Wer kennt gute Quittenrezepte?' });
    assert.equal(root.status, 201);
    rootPid = root.body.pid as number;
    bert = await member(b, 'Bert');
    bertUid = b.app.services.db.value<number>("SELECT uid FROM users WHERE username = 'Bert'")!;
    bertActor = `${b.config.origin}/ap/actor/${bertUid}`;
    bertHandle = `@Bert@${new URL(b.config.origin).host}`;
    berit = await memberOfB('Berit');
  });
  afterEach(() => gate.releaseAll());
  after(async () => {
    await a?.close();
    await b?.close();
  });

  /**
   * POSTs `activity` to A's shared inbox, signed (draft-cavage, as Mastodon signs) with the RSA key
   * of B's member `signer` (default Bert) as B keeps it.
   */
  async function sendAs(activity: Record<string, unknown>, signer = bertUid): Promise<number> {
    const [rsa] = await actorKeyPairs(b.app.services.db, signer, b.clock.now());
    const request = await signRequest(
      new Request(`${a.url}/ap/inbox`, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(activity),
      }),
      rsa!.privateKey,
      new URL(`${b.config.origin}/ap/actor/${signer}#main-key`),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    const answer = await fetch(request);
    await answer.arrayBuffer();
    return answer.status;
  }

  /**
   * A Create of a reply to A's root by B's member `by` (default Bert), its Note on B (one of B's own
   * entries), with an attachment or none.
   */
  async function bertReplies(
    content: string,
    attachment: Record<string, unknown>[] = [],
    by: { client: Client; actor: string } = { client: bert, actor: bertActor },
  ) {
    const onB = await by.client.postMultipart('/api/entry/create', { content });
    assert.equal(onB.status, 201);
    const noteId = `${b.config.origin}/e/${onB.body.pid}`;
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${b.config.origin}/ap/activity/test-${++serial}`,
      type: 'Create',
      actor: by.actor,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${a.config.origin}/ap/actor/board`],
      object: {
        id: noteId,
        type: 'Note',
        attributedTo: by.actor,
        inReplyTo: `${a.config.origin}/e/${rootPid}`,
        url: noteId,
        content: `<p>${content}</p>`,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        attachment,
      },
    };
  }

  const repliesOnA = () =>
    a.app.services.db.all<{ pid: number; deleted: number }>(
      'SELECT pid, deleted FROM entries WHERE reply_to = ? ORDER BY pid',
      rootPid,
    );
  /** Waits until A's inbox queue has handled everything sent so far. */
  const handled = () =>
    eventually(
      "A's inbox queue is empty",
      () => a.app.services.db.value<number>('SELECT count(*) FROM fedify_queue') === 0 || undefined,
      federationWaitMs,
    );

  let replyPid: number;
  let firstReply: Awaited<ReturnType<typeof bertReplies>>;

  test("a reply from B's member is in A's thread under B's handle, tells A's member and is found by A's search", async () => {
    firstReply = await bertReplies('Quittengelee mit Zimt, ganz einfach.');
    assert.equal(await sendAs(firstReply), 202);
    const reply = await eventually(
      'the reply is in the thread',
      async () => (await visitor(a).get(`/api/entry/${rootPid}/thread`)).body.replies?.[0],
      federationWaitMs,
    );
    replyPid = reply.pid;
    assert.equal(reply.username, bertHandle);
    assert.equal(reply.content, 'Quittengelee mit Zimt, ganz einfach.');
    assert.deepEqual(reply.remote, {
      actor: bertActor,
      instance: new URL(b.config.origin).host,
      url: firstReply.object.url,
    });
    const told = await anna.get('/api/user/notifications/0');
    assert.ok(JSON.stringify(told.body).includes(`"pid":${replyPid}`), `Anna is told: ${JSON.stringify(told.body)}`);
    const found = await eventually(
      'the search finds it',
      async () => {
        const answer = await visitor(a).get(`/api/search/0?q=${encodeURIComponent('Quittengelee Zimt')}`);
        return answer.body.find?.((entry: { pid: number }) => entry.pid === replyPid);
      },
      federationWaitMs,
    );
    assert.equal(found.username, bertHandle);
  });

  test('a moderator’s removal on A holds: a second delivery of the same reply does not bring it back', async () => {
    assert.equal((await mod.post(`/api/mod/entry/${replyPid}/remove`, { reason: 'Werbung' })).status, 200);
    assert.equal(await sendAs({ ...firstReply, id: `${firstReply.id}/again` }), 202);
    await handled();
    assert.equal(repliesOnA().length, 1, 'no second entry');
    assert.notEqual(repliesOnA()[0]!.deleted, 0, 'still removed');
    const thread = await visitor(a).get(`/api/entry/${rootPid}/thread`);
    assert.ok(!JSON.stringify(thread.body).includes('Quittengelee'), 'the removed text is shown nowhere');
  });

  test("a ban on A of B's actor holds against an activity already in flight", async () => {
    // The activity is held at A's image gate: verified, its author known, its image fetched, not yet written.
    const held = gate.holdNext('entry');
    const photo = await imageFixture({ format: 'png' });
    const photoPath = `/static/media/${await storeOnB(photo)}`;
    const inFlight = await bertReplies('Noch ein Rezept, mit Bild.', [
      { type: 'Document', mediaType: 'image/png', url: `${b.config.origin}${photoPath}` },
    ]);
    assert.equal(await sendAs(inFlight), 202);
    // Bounded: on a board that fetches no image the activity never gets there, and the test fails.
    const givenUp = new Promise<{ status: number; text: string }>((resolve) =>
      setTimeout(() => resolve({ status: 0, text: 'not at the gate in time' }), federationWaitMs).unref(),
    );
    await held.reachedBy(givenUp);
    const banned = await mod.post(`/api/mod/user/${encodeURIComponent(bertHandle)}/ban`, { reason: 'Spam' });
    assert.equal(banned.status, 200, banned.text);
    held.release();
    await handled();
    assert.equal(repliesOnA().length, 1, 'the reply in flight is not written');
    // And one sent after the ban is dropped as well.
    assert.equal(await sendAs(await bertReplies('Und noch eins.')), 202);
    await handled();
    assert.equal(repliesOnA().length, 1);
  });

  /** A member of B as A meets it: its client on B, its uid there, its actor and its handle. */
  async function memberOfB(name: string) {
    const client = await member(b, name);
    const uid = b.app.services.db.value<number>('SELECT uid FROM users WHERE username = ?', name)!;
    return {
      client,
      uid,
      actor: `${b.config.origin}/ap/actor/${uid}`,
      handle: `@${name}@${new URL(b.config.origin).host}`,
    };
  }
  type MemberOfB = Awaited<ReturnType<typeof memberOfB>>;

  const publicAddress = 'https://www.w3.org/ns/activitystreams#Public';
  const votesOnA = async (pid: number) => {
    const { yes, no } = (await visitor(a).get(`/api/entry/${pid}/votes`)).body;
    return { yes, no };
  };
  const votesAre = (pid: number, want: { yes: number; no: number }) =>
    eventually(
      `the votes on ${pid} are ${JSON.stringify(want)}`,
      async () => {
        const got = await votesOnA(pid);
        return got.yes === want.yes && got.no === want.no;
      },
      federationWaitMs,
    );

  /** A vote as B sends one (lib/federation/activities.ts): its id names the entry, the voter, the mode and the time. */
  function voteOfB(voter: MemberOfB, mode: 'yes' | 'no', pid: number) {
    b.clock.advance(1);
    const at = b.clock.now();
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${b.config.origin}/ap/vote/${pid}/${voter.uid}/${mode}/${at}`,
      type: mode === 'yes' ? 'Like' : 'Dislike',
      actor: voter.actor,
      object: `${a.config.origin}/e/${pid}`,
      to: [publicAddress],
      published: new Date(at * 1000).toISOString(),
    };
  }

  /** B's withdrawal of a vote: an Undo embedding the same Like or Dislike, as Lemmy expects. */
  function undoOfB(vote: ReturnType<typeof voteOfB>) {
    const { '@context': context, ...embedded } = vote;
    return {
      '@context': context,
      id: `${b.config.origin}/ap/activity/test-${++serial}/undo`,
      type: 'Undo',
      actor: vote.actor,
      object: embedded,
      to: [publicAddress],
      cc: [`${vote.actor}/followers`, `${b.config.origin}/ap/actor/board`],
    };
  }

  test("votes of B's member on A's entry count and withdraw: Like, Dislike and B's Undo of each", async () => {
    const like = voteOfB(berit, 'yes', rootPid);
    assert.equal(await sendAs(like, berit.uid), 202);
    await votesAre(rootPid, { yes: 1, no: 0 });
    assert.equal(await sendAs(undoOfB(like), berit.uid), 202);
    await votesAre(rootPid, { yes: 0, no: 0 });
    const dislike = voteOfB(berit, 'no', rootPid);
    assert.equal(await sendAs(dislike, berit.uid), 202);
    await votesAre(rootPid, { yes: 0, no: 1 });
    const changed = voteOfB(berit, 'yes', rootPid); // a changed vote: B sends the new one
    assert.equal(await sendAs(changed, berit.uid), 202);
    await votesAre(rootPid, { yes: 1, no: 0 });
    assert.equal(
      a.app.services.db.value('SELECT count(*) FROM votes WHERE pid = ?', rootPid),
      1,
      'one vote per actor and entry',
    );
    assert.equal(await sendAs(undoOfB(changed), berit.uid), 202);
    await votesAre(rootPid, { yes: 0, no: 0 });
  });

  test("B's member edits and deletes a reply: B's Update and Delete apply on A", async () => {
    const created = await bertReplies('Erste Fassung: Quittenbrot braucht Geduld.', [], berit);
    assert.equal(await sendAs(created, berit.uid), 202);
    const pid = await eventually(
      'the reply is on A',
      () => a.app.services.db.value<number>('SELECT pid FROM remote_entries WHERE object_id = ?', created.object.id),
      federationWaitMs,
    );
    const entryOnA = async () => (await visitor(a).get(`/api/entry/${pid}/thread`)).body.entry;
    assert.equal((await entryOnA()).content, 'Erste Fassung: Quittenbrot braucht Geduld.');
    // As B's outbox sends an edit (lib/federation/activities.ts): the whole Note, with its `updated`.
    const update = {
      ...created,
      id: `${b.config.origin}/ap/activity/test-${++serial}/update`,
      type: 'Update',
      object: { ...created.object, content: '<p>Zweite Fassung: mit Honig.</p>', updated: new Date().toISOString() },
    };
    assert.equal(await sendAs(update, berit.uid), 202);
    const edited = await eventually(
      'the edit is on A',
      async () => {
        const entry = await entryOnA();
        return entry.content === 'Zweite Fassung: mit Honig.' && entry;
      },
      federationWaitMs,
    );
    assert.equal(typeof edited.edited_at, 'number');
    // B's Delete names a Tombstone with the entry's id: B's own answer for the deleted entry.
    const pidOnB = Number(new URL(created.object.id).pathname.split('/').pop());
    assert.equal((await berit.client.post(`/api/entry/${pidOnB}/delete`, {})).status, 200);
    const tombstone = await fetch(created.object.id, { headers: { accept: 'application/activity+json' } });
    assert.equal(tombstone.status, 410);
    const gone = (await tombstone.json()) as Record<string, unknown>;
    assert.equal(gone.type, 'Tombstone');
    const remove = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${b.config.origin}/ap/activity/test-${++serial}/delete`,
      type: 'Delete',
      actor: berit.actor,
      object: { id: gone.id, type: 'Tombstone' },
      to: [publicAddress],
      cc: [`${berit.actor}/followers`, `${a.config.origin}/ap/actor/board`],
    };
    assert.equal(await sendAs(remove, berit.uid), 202);
    await eventually(
      'the reply is deleted on A',
      () => a.app.services.db.value<number>('SELECT deleted FROM entries WHERE pid = ?', pid) === 1,
      federationWaitMs,
    );
    const thread = await visitor(a).get(`/api/entry/${rootPid}/thread`);
    assert.ok(!JSON.stringify(thread.body).includes('Honig'), 'the deleted text is shown nowhere');
  });

  test('a vote whose author A bans while it is in flight is dropped', async () => {
    // Boris is new to A and has an avatar: his Like is held at A's image gate, verified and his
    // account on A made, his avatar fetched, the vote not yet written.
    const boris = await memberOfB('Boris');
    const avatar = await boris.client.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'boris.jpg', type: 'image/jpeg', data: await imageFixture() },
    ]);
    assert.equal(avatar.status, 200, avatar.text);
    const pid = (await anna.postMultipart('/api/entry/create', { content: 'Stimmt ab: Quitte oder Birne?' })).body
      .pid as number;
    const held = gate.holdNext('avatar');
    assert.equal(await sendAs(voteOfB(boris, 'yes', pid), boris.uid), 202);
    const givenUp = new Promise<{ status: number; text: string }>((resolve) =>
      setTimeout(() => resolve({ status: 0, text: 'not at the gate in time' }), federationWaitMs).unref(),
    );
    await held.reachedBy(givenUp);
    const banned = await mod.post(`/api/mod/user/${encodeURIComponent(boris.handle)}/ban`, { reason: 'Spam' });
    assert.equal(banned.status, 200, banned.text);
    held.release();
    // The inbox queue takes one activity after the other: once Berit's later vote counts, Boris's was handled.
    assert.equal(await sendAs(voteOfB(berit, 'no', pid), berit.uid), 202);
    await eventually('Berit’s vote counts', async () => (await votesOnA(pid)).no === 1, federationWaitMs);
    assert.deepEqual(await votesOnA(pid), { yes: 0, no: 1 }, 'Boris’s Like is not counted');
    const borisOnA = a.app.services.db.value<number>('SELECT uid FROM users WHERE username = ?', boris.handle);
    assert.ok(borisOnA, 'his account on A was made before the ban');
    assert.equal(a.app.services.db.value('SELECT count(*) FROM votes WHERE uid = ?', borisOnA), 0, 'no vote of his');
    assert.equal(a.app.services.db.value('SELECT count(*) FROM remote_reactions WHERE uid = ?', borisOnA), 0);
  });

  /** An image as B serves it to anyone: an entry of Bert's on B with it, its path under media/. */
  async function storeOnB(image: Buffer): Promise<string> {
    const created = await bert.postMultipart('/api/entry/create', { content: 'Ein Bild' }, [
      { name: 'file', filename: 'bild.png', type: 'image/png', data: image },
    ]);
    assert.equal(created.status, 201, created.text);
    return created.body.filepath as string;
  }
});
