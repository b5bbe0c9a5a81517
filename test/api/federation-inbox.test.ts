import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { changeInstance } from '../../lib/federation/instances.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { eventually, member, startBoard, visitor, type TestBoard } from '../helpers.ts';
import { startFakeInstance, type FakeInstance } from '../helpers/fake-instance.ts';
import { federatedEnv, federationWaitMs, freePorts, quickFederation } from '../helpers/federation.ts';

/**
 * docs/API.md "What comes in": the door of the inboxes. A fake instance on 127.0.0.1 serves its
 * actors (one RSA key for all) and signs what they send; the board allows it. Refused before any
 * signature is checked: an instance not admitted (counted in the metrics), an id on another host,
 * a body over 256 KiB; refused once verified activities used up their share: an actor's and an
 * instance's rate (429 with Retry-After, BOARD_LIMITS scaling the numbers). A forged signature is
 * refused and uses up nothing. Then docs/API.md "Remote entries": a reply from there to a
 * member's entry is in the thread as its author's plain text, with `remote`, and tells the member.
 */

/** BOARD_LIMITS for this board: an actor may send 3 a minute, an instance 15. */
const limitsFactor = '0.05';

describe('the inbox door and a remote reply', () => {
  let board: TestBoard;
  let fake: FakeInstance;
  let fakeHost: string;
  let refusedHost: string;

  const actorOf = (name: string, host = fakeHost) => fake.actorOf(name, host);

  before(async () => {
    const [boardPort, fakePort, refusedPort] = await freePorts(3);
    fake = await startFakeInstance(fakePort!);
    fakeHost = fake.host;
    refusedHost = `127.0.0.1:${refusedPort}`;
    board = await startBoard(
      {
        ...federatedEnv(boardPort!, [boardPort!, fakePort!, refusedPort!]),
        BOARD_METRICS_PORT: '0',
        BOARD_LIMITS: limitsFactor,
      },
      { port: boardPort, federation: quickFederation },
    );
    changeInstance(board.app.services.db, fakeHost, 'allow', administrator, board.clock.now());
  });
  after(async () => {
    await board?.close();
    await fake?.close();
  });

  /** A Like by `name` of one of the board's entries, with a fresh id on the actor's host. */
  const like = (name: string, host = fakeHost) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: fake.nextId(host),
    type: 'Like',
    actor: actorOf(name, host),
    object: `${board.config.origin}/e/1`,
  });

  /** POSTs an activity to an inbox (default the shared one), signed as its actor with `key`. */
  const send = (
    activity: Record<string, unknown> | string,
    options: { key?: 'own' | 'other' | 'none'; path?: string } = {},
  ) => fake.send(`${board.url}${options.path ?? '/ap/inbox'}`, activity, options);

  async function refusals(group: string): Promise<number> {
    const text = await (await fetch(`${board.metricsUrl}/metrics`)).text();
    const line = text
      .split('\n')
      .find((sample) => sample.startsWith(`board_limit_refusals_total{kind="federation",group="${group}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  const queued = (text: string) =>
    board.app.services.db.value<number>('SELECT count(*) FROM fedify_queue WHERE message LIKE ?', `%${text}%`);

  test('an instance the board does not admit is refused 403 before its key is fetched, and counted', async () => {
    const before = await refusals('instance');
    for (const path of ['/ap/inbox', '/ap/actor/board/inbox']) {
      const answer = await send(like('mallory', refusedHost), { key: 'none', path });
      assert.equal(answer.status, 403, path);
      assert.equal(JSON.parse(answer.body).error.code, 'federation.instance_refused');
    }
    assert.equal(await refusals('instance'), before + 2);
    assert.equal(queued(refusedHost), 0);
  });

  test('an activity or an object whose id is on another host than its actor is refused 400', async () => {
    const before = await refusals('object_host');
    const foreignId = { ...like('anna'), id: `http://${refusedHost}/activities/1` };
    const foreignNote = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: fake.nextId(),
      type: 'Create',
      actor: actorOf('anna'),
      object: { id: `http://${refusedHost}/notes/1`, type: 'Note', content: 'untergeschoben' },
    };
    for (const activity of [foreignId, foreignNote]) {
      const answer = await send(activity);
      assert.equal(answer.status, 400, answer.body);
      assert.equal(JSON.parse(answer.body).error.code, 'federation.foreign_object');
    }
    assert.equal(await refusals('object_host'), before + 2);
    assert.equal(queued('untergeschoben'), 0);
  });

  test('a body over 256 KiB is refused 413 and counted; one without an actor 400', async () => {
    const before = await refusals('size');
    const huge = { ...like('anna'), content: 'x'.repeat(300 * 1024) };
    assert.equal((await send(huge, { key: 'none' })).status, 413);
    assert.equal(await refusals('size'), before + 1);
    const noActor = await send('{"type":"Like"}');
    assert.equal(noActor.status, 400);
    assert.equal(JSON.parse(noActor.body).error.field, 'actor');
  });

  test('a forged signature is refused 401 and uses up nothing of the share', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await send(like('cora'), { key: 'other' })).status, 401);
    for (let i = 0; i < 3; i++) assert.equal((await send(like('cora'))).status, 202, `genuine ${i + 1}`);
  });

  test("an actor's fourth activity in a minute is refused 429 with Retry-After; others on its server go on", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await send(like('dora'))).status, 202, `activity ${i + 1}`);
    const before = await refusals('actor_rate');
    const refused = await send(like('dora'));
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const error = JSON.parse(refused.body).error;
    assert.equal(error.code, 'rate.limited');
    assert.match(error.message, /Zu viele Aktivitäten von diesem Konto: höchstens 3 pro Minute/);
    assert.equal(await refusals('actor_rate'), before + 1);
    assert.equal((await send(like('emil'))).status, 202, 'another actor of the same server');
  });

  test("an instance's share is refused past its limit for every actor there, and opens again with the clock", async () => {
    // Cora (3), Dora (3) and Emil (1) were counted: 8 more fill the instance's 15 a minute.
    for (const name of ['fritz', 'greta', 'hans', 'ida'])
      for (let i = 0; i < 2; i++) assert.equal((await send(like(name))).status, 202, `${name} ${i + 1}`);
    const refused = await send(like('jakob'));
    assert.equal(refused.status, 429);
    assert.match(JSON.parse(refused.body).error.message, /Zu viele Aktivitäten von diesem Server: höchstens 15/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    board.clock.advance(61);
    assert.equal((await send(like('jakob'))).status, 202, 'a minute later');
  });

  test('a flood from one server past its share is refused before any is verified or queued; readers are answered', async () => {
    let taken = 1; // Jakob's, in this minute
    while (taken < 100 && (await send(like(`k${taken}`))).status === 202) taken++;
    assert.equal(taken, 15, "the instance's share of a minute");
    const queuedBefore = board.app.services.db.value<number>('SELECT count(*) FROM fedify_queue');
    const before = await refusals('instance_rate');
    const statuses = new Map<number, number>();
    // The bound, not the speed: bench/ is the place for 10,000 and the readers' p99.
    const flood = 1_000;
    let next = 0;
    // A reader reads the feed again and again while the flood lasts.
    const read: number[] = [];
    const reader = (async () => {
      while (next < flood) {
        const answer = await fetch(`${board.url}/api/entry/feed/0`);
        await answer.arrayBuffer();
        read.push(answer.status);
      }
    })();
    // 50 at a time, unsigned: past the share nothing is verified, so a flood costs no key fetch and no signature check.
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < flood) {
          next++;
          const answer = await send(like(`flut${next % 100}`), { key: 'none' });
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }),
    );
    await reader;
    assert.deepEqual([...statuses], [[429, flood]]);
    assert.ok(read.length > 0 && read.every((status) => status === 200), 'a reader is answered meanwhile');
    assert.equal(await refusals('instance_rate'), before + flood);
    assert.equal(board.app.services.db.value('SELECT count(*) FROM fedify_queue'), queuedBefore, 'nothing queued');
  });

  test("a Mastodon reply to a member's entry is a remote entry in the thread, as plain text, and tells the member", async () => {
    board.clock.advance(61); // the flood used up this minute's share
    const anna = await member(board, 'Anna');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Was meint ihr dazu?' });
    assert.equal(created.status, 201);
    const pid = created.body.pid as number;
    const nora = actorOf('nora');
    const noteId = `${nora}/statuses/1`;
    // As Mastodon sends a reply with a mention (app/serializers/activitypub/note_serializer.rb).
    const reply = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${noteId}/activity`,
      type: 'Create',
      actor: nora,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${nora}/followers`, `${board.config.origin}/ap/actor/1`],
      object: {
        id: noteId,
        type: 'Note',
        attributedTo: nora,
        inReplyTo: `${board.config.origin}/e/${pid}`,
        url: `http://${fakeHost}/@nora/1`,
        content:
          `<p><span class="h-card"><a href="${board.config.origin}/u/Anna" class="u-url mention">@<span>Anna</span></a></span> ` +
          'Gute Frage!<script>alert(1)</script><img src="http://tracker.example/pixel.gif" width="1" height="1"></p>',
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        cc: [`${board.config.origin}/ap/actor/1`],
        tag: [{ type: 'Mention', href: `${board.config.origin}/ap/actor/1`, name: `@Anna@${new URL(board.url).host}` }],
      },
    };
    assert.equal((await send(reply)).status, 202);
    const reader = visitor(board);
    const thread = await eventually(
      'the reply is in the thread',
      async () => {
        const answer = await reader.get(`/api/entry/${pid}/thread`);
        return answer.body.replies?.length ? answer.body : undefined;
      },
      federationWaitMs,
    );
    const [remote] = thread.replies;
    assert.equal(remote.username, `@nora@${fakeHost}`);
    assert.equal(remote.content, '@Anna Gute Frage!');
    assert.deepEqual(remote.remote, { actor: nora, instance: fakeHost, url: `http://${fakeHost}/@nora/1` });
    assert.equal(thread.entry.reply_count, 1);
    const feed = await reader.get('/api/entry/feed/0');
    const root = feed.body.find((entry: { pid: number }) => entry.pid === pid);
    assert.equal(root.latest.entry.pid, remote.pid, 'the reply is the thread’s latest');
    const told = await anna.get('/api/user/notifications/0');
    assert.ok(
      JSON.stringify(told.body).includes(`"pid":${remote.pid}`),
      `Anna is told of the reply: ${JSON.stringify(told.body)}`,
    );
    // The remote author is no member: no profile, no login.
    assert.equal((await reader.get(`/api/u/${encodeURIComponent(`@nora@${fakeHost}`)}/info`)).status, 404);
    const login = await visitor(board).post('/api/auth/login', { user: `@nora@${fakeHost}`, pass: 'irgendwas' });
    assert.equal(login.status, 401);
    // A second delivery of the same Create (a retry, or a Group's Announce of it) is the same entry.
    assert.equal((await send({ ...reply, id: `${noteId}/activity2` })).status, 202);
    await eventually(
      'the second delivery is handled',
      () =>
        board.app.services.db.value<number>("SELECT count(*) FROM fedify_queue WHERE message LIKE '%activity2%'") ===
          0 || undefined,
      federationWaitMs,
    );
    assert.equal(board.app.services.db.value('SELECT count(*) FROM entries WHERE reply_to = ?', pid), 1);
  });
});
