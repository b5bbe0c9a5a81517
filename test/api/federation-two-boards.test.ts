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
 * Votes (Like/Dislike/Undo), edits (Update) and deletions (Delete) from B are built elsewhere: their
 * tests belong below, sent with `sendAs` as these are.
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
  });
  afterEach(() => gate.releaseAll());
  after(async () => {
    await a?.close();
    await b?.close();
  });

  /** POSTs `activity` to A's shared inbox, signed (draft-cavage, as Mastodon signs) with Bert's RSA key as B keeps it. */
  async function sendAs(activity: Record<string, unknown>): Promise<number> {
    const [rsa] = await actorKeyPairs(b.app.services.db, bertUid, b.clock.now());
    const request = await signRequest(
      new Request(`${a.url}/ap/inbox`, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(activity),
      }),
      rsa!.privateKey,
      new URL(`${bertActor}#main-key`),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    const answer = await fetch(request);
    await answer.arrayBuffer();
    return answer.status;
  }

  /** A Create of Bert's reply to A's root, its Note on B (one of B's own entries), with an attachment or none. */
  async function bertReplies(content: string, attachment: Record<string, unknown>[] = []) {
    const onB = await bert.postMultipart('/api/entry/create', { content });
    assert.equal(onB.status, 201);
    const noteId = `${b.config.origin}/e/${onB.body.pid}`;
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${b.config.origin}/ap/activity/test-${++serial}`,
      type: 'Create',
      actor: bertActor,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${a.config.origin}/ap/actor/board`],
      object: {
        id: noteId,
        type: 'Note',
        attributedTo: bertActor,
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

  /** An image as B serves it to anyone: an entry of Bert's on B with it, its path under media/. */
  async function storeOnB(image: Buffer): Promise<string> {
    const created = await bert.postMultipart('/api/entry/create', { content: 'Ein Bild' }, [
      { name: 'file', filename: 'bild.png', type: 'image/png', data: image },
    ]);
    assert.equal(created.status, 201, created.text);
    return created.body.filepath as string;
  }
});
