import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, afterEach, before, describe, test } from 'node:test';
import { createEntry } from '../../lib/entries/entries.ts';
import { changeInstance } from '../../lib/federation/instances.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import {
  callGate,
  eventually,
  member,
  moderator,
  modlogRows,
  startBoard,
  uidOf,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { startFakeInstance, type FakeInstance } from '../helpers/fake-instance.ts';
import { federatedEnv, federationWaitMs, freePorts, quickFederation } from '../helpers/federation.ts';
import { startFakeSite, type FakeSite } from '../helpers/previews.ts';

/**
 * docs/API.md "Reports from other servers", "Blocked instances" and "Remote authors under
 * moderation": a Flag from an admitted server is an anonymous report with its server named (in the
 * moderators' queue and the operator's webhook); a block hides that server's entries everywhere and
 * an unblock shows them again; a moderator removes a remote entry and bans a remote author (with
 * purge) as a member's, and a ban or a block that lands while a verified activity waits in the
 * queue holds (a gate at the other server holds the Note the activity names).
 */

describe('moderation of what other servers send', () => {
  let board: TestBoard;
  let fake: FakeInstance;
  let fakeHost: string;
  let refusedHost: string;
  let site: FakeSite;
  let mia: Client;
  const hooks: string[] = [];
  const gate = callGate(['note']);
  /** The Notes the fake instance serves by id (for a Create that names its object by id only). */
  const notes = new Map<string, Record<string, unknown>>();

  before(async () => {
    const [boardPort, fakePort, refusedPort] = await freePorts(3);
    fake = await startFakeInstance(fakePort!, {
      documents: async (path) => {
        const note = notes.get(path);
        if (note) await gate.pass('note');
        return note;
      },
    });
    fakeHost = fake.host;
    refusedHost = `127.0.0.1:${refusedPort}`;
    site = await startFakeSite({
      '/hook': (req: IncomingMessage, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          hooks.push(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(200).end();
        });
      },
    });
    board = await startBoard(
      {
        ...federatedEnv(boardPort!, [boardPort!, fakePort!, refusedPort!]),
        BOARD_LIMITS: '0',
        BOARD_NOTIFY_URL: site.url('/hook'),
      },
      { port: boardPort, federation: quickFederation, notify: { gapMs: 0 } },
    );
    changeInstance(board.app.services.db, fakeHost, 'allow', administrator, board.clock.now());
    await member(board, 'Anna');
    mia = await moderator(board, 'Mia');
  });
  afterEach(() => gate.releaseAll());
  after(async () => {
    gate.releaseAll();
    await board?.close();
    await fake?.close();
    await site?.close();
  });

  const db = () => board.app.services.db;
  const entryUrl = (pid: number) => `${board.config.origin}/e/${pid}`;
  const send = (activity: Record<string, unknown>) => fake.send(`${board.url}/ap/inbox`, activity);

  /** A new top-level entry of Anna's, straight in the database (the API's own limits are not the point here). */
  const annaPosts = (content: string) =>
    createEntry(db(), { uid: uidOf(board, 'Anna'), content, filepath: '', replyTo: 0, link: '' }, board.clock.now())!;

  /** As Mastodon sends a report: from its instance actor, the reported statuses and account, the comment. */
  const mastodonFlag = (objects: string[], comment: string) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: fake.nextId(),
    type: 'Flag',
    actor: fake.actorOf('instance'),
    content: comment,
    object: objects,
  });

  /** A Mastodon reply by `name` to entry `pid`; `byId` sends the Note by its id only (the board fetches it). */
  function reply(name: string, pid: number, text: string, options: { byId?: boolean } = {}) {
    const actor = fake.actorOf(name);
    const id = `http://${fakeHost}/notes/${name}-${Math.random().toString(36).slice(2)}`;
    const note = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id,
      type: 'Note',
      attributedTo: actor,
      inReplyTo: entryUrl(pid),
      content: `<p>${text}</p>`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    };
    notes.set(new URL(id).pathname, note);
    return {
      activity: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${id}/activity`,
        type: 'Create',
        actor,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        object: options.byId ? id : note,
      },
      id,
    };
  }

  /** Sends a reply and waits until it is a remote entry; its pid. */
  async function remoteReply(name: string, pid: number, text: string): Promise<number> {
    const { activity, id } = reply(name, pid, text);
    assert.equal((await send(activity)).status, 202);
    return eventually(
      `${name}'s reply is stored`,
      () => db().one<{ pid: number }>('SELECT pid FROM remote_entries WHERE object_id = ?', id)?.pid,
      federationWaitMs,
    );
  }

  const queueEmpty = () =>
    eventually(
      'the inbox queue is worked',
      () => db().value<number>('SELECT count(*) FROM fedify_queue') === 0 || undefined,
      federationWaitMs,
    );

  test('a Mastodon Flag is an anonymous report of each named entry, with its server in the queue and the webhook', async () => {
    const pid = annaPosts('Ein gemeldeter Beitrag');
    const flag = mastodonFlag([`${board.config.origin}/ap/actor/${uidOf(board, 'Anna')}`, entryUrl(pid)], 'Spam');
    assert.equal((await send(flag)).status, 202);
    const item = await eventually(
      'the report is in the queue',
      async () =>
        (await mia.get('/api/mod/reports/0')).body.find((i: { entry: { pid: number } }) => i.entry.pid === pid),
      federationWaitMs,
    );
    assert.equal(item.open_reports, 1);
    assert.deepEqual(
      item.reports.map((r: Record<string, unknown>) => ({
        reason: r.reason,
        reporter: r.reporter,
        instance: r.instance,
      })),
      [{ reason: 'Spam', reporter: '', instance: fakeHost }],
    );
    assert.deepEqual(db().all('SELECT reporter_uid, instance FROM reports WHERE pid = ?', pid), [
      { reporter_uid: 0, instance: fakeHost },
    ]);
    const hook = await eventually('the webhook is told', () => hooks.find((body) => body.includes(entryUrl(pid))));
    assert.match(hook, new RegExp(`gemeldet von ${fakeHost.replace(/[.]/g, '\\.')}`));
  });

  test('a Lemmy Flag (its reason in summary) is a report; one from a server not admitted is refused 403', async () => {
    const pid = annaPosts('Noch ein gemeldeter Beitrag');
    // As Lemmy sends a report (crates/apub/src/activities/community/report.rs): one object, the reason in summary.
    const lemmy = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: fake.nextId(),
      type: 'Flag',
      actor: fake.actorOf('lena'),
      to: [`${board.config.origin}/ap/actor/board`],
      object: entryUrl(pid),
      summary: 'Beleidigung',
    };
    assert.equal((await send(lemmy)).status, 202);
    await eventually(
      'the report is stored',
      () => db().one<{ reason: string; instance: string }>('SELECT reason, instance FROM reports WHERE pid = ?', pid),
      federationWaitMs,
    ).then((row) => assert.deepEqual({ ...row }, { reason: 'Beleidigung', instance: fakeHost }));
    const refused = await fake.send(
      `${board.url}/ap/inbox`,
      {
        ...mastodonFlag([entryUrl(pid)], 'von anderswo'),
        id: fake.nextId(refusedHost),
        actor: fake.actorOf('x', refusedHost),
      },
      { key: 'none' },
    );
    assert.equal(refused.status, 403);
    assert.equal(db().value('SELECT count(*) FROM reports WHERE pid = ?', pid), 1);
  });

  test("a server's Flags count as one address's reports: past 10 a minute the rest are dropped", async () => {
    board.clock.advance(61);
    const pids = Array.from({ length: 12 }, (_, i) => annaPosts(`Massenmeldung ${i}`));
    assert.equal((await send(mastodonFlag(pids.map(entryUrl), 'alles Spam'))).status, 202);
    await queueEmpty();
    const reported = db().value<number>(
      'SELECT count(*) FROM reports WHERE pid IN (SELECT value FROM json_each(?))',
      JSON.stringify(pids),
    );
    assert.equal(reported, 10);
    board.clock.advance(61);
    assert.equal((await send(mastodonFlag([entryUrl(pids.at(-1)!)], 'später'))).status, 202);
    await eventually(
      'a minute later the server reports again',
      () => db().value<number>('SELECT count(*) FROM reports WHERE pid = ?', pids.at(-1)) === 1 || undefined,
      federationWaitMs,
    );
  });

  test('a block hides the entries of that server everywhere, not deleted; the unblock shows them again', async () => {
    const pid = annaPosts('Worüber reden wir?');
    const reader = visitor(board);
    const latestOf = async (root: number) =>
      (await reader.get('/api/entry/feed/0')).body.find((e: { pid: number }) => e.pid === root)?.latest;
    const entriesCount = async () => (await reader.get('/api/stats')).body.entries as number;
    const countBefore = await entriesCount();
    const kept = await remoteReply('nora', pid, 'Blockwort eins');
    const removedByMod = await remoteReply('nora', pid, 'Blockwort zwei');
    assert.equal((await mia.post(`/api/mod/entry/${removedByMod}/remove`, { reason: 'Unsinn' })).status, 200);
    assert.equal(await entriesCount(), countBefore + 1);

    const block = await mia.post('/api/mod/federation/instances', { instance: fakeHost, action: 'block' });
    assert.equal(block.status, 200, JSON.stringify(block.body));
    const thread = (await reader.get(`/api/entry/${pid}/thread`)).body;
    const hidden = thread.replies.find((e: { pid: number }) => e.pid === kept);
    assert.equal(hidden.deleted, 1);
    assert.equal(hidden.content, '');
    assert.equal(hidden.removed, 1);
    assert.equal((await latestOf(pid))?.entry?.pid, undefined, 'no hidden reply is the thread’s latest');
    assert.equal(await entriesCount(), countBefore);
    assert.equal((await reader.get(`/api/search/0?q=${encodeURIComponent('Blockwort')}`)).body.length, 0);
    const atom = await (await fetch(`${board.url}/feed.atom`)).text();
    assert.ok(!atom.includes('Blockwort'), 'the Atom feed leaves it out');
    assert.equal(db().value('SELECT content FROM entries WHERE pid = ?', kept), 'Blockwort eins', 'kept, not deleted');
    const blocked = await send(reply('nora', pid, 'noch was').activity);
    assert.equal(blocked.status, 403, 'its activities are refused');

    const unblock = await mia.post('/api/mod/federation/instances', { instance: fakeHost, action: 'allow' });
    assert.equal(unblock.status, 200, JSON.stringify(unblock.body));
    const again = (await reader.get(`/api/entry/${pid}/thread`)).body;
    const shown = again.replies.find((e: { pid: number }) => e.pid === kept);
    assert.equal(shown.content, 'Blockwort eins');
    assert.equal(shown.removed, undefined);
    assert.equal(again.replies.find((e: { pid: number }) => e.pid === removedByMod).removed, 1, 'a removal stays');
    assert.equal((await latestOf(pid))?.entry?.pid, kept);
    assert.equal(await entriesCount(), countBefore + 1);
    const found = (await reader.get(`/api/search/0?q=${encodeURIComponent('Blockwort')}`)).body;
    assert.deepEqual(
      found.map((e: { pid: number }) => e.pid),
      [kept],
    );
    assert.equal(
      modlogRows(board).filter((row) => row.action === 'remove' && row.pid === kept).length,
      0,
      'the block is one log row, not a removal per entry',
    );
  });

  test('a moderator removes a remote entry and bans its author with purge by its handle, as a member', async () => {
    const pid = annaPosts('Eine Frage an alle');
    const first = await remoteReply('paul', pid, 'Erste Antwort');
    const second = await remoteReply('paul', pid, 'Zweite Antwort');
    const paul = `@paul@${fakeHost}`;
    const paulUid = uidOf(board, paul);
    assert.equal((await mia.post(`/api/mod/entry/${first}/remove`, { reason: 'Spam' })).status, 200);
    assert.ok(modlogRows(board).some((row) => row.action === 'remove' && row.pid === first && row.uid === paulUid));
    const ban = await mia.post(`/api/mod/user/${encodeURIComponent(paul)}/ban`, { reason: 'Spam', purge: '1' });
    assert.equal(ban.status, 200, JSON.stringify(ban.body));
    assert.equal(ban.body.username, paul);
    assert.equal(db().value('SELECT deleted FROM entries WHERE pid = ?', second), 1, 'purged');
    const { activity, id } = reply('paul', pid, 'Nach dem Bann');
    assert.equal((await send(activity)).status, 202);
    await queueEmpty();
    assert.equal(db().value('SELECT count(*) FROM remote_entries WHERE object_id = ?', id), 0, 'dropped');
    // Every other write of a banned author is dropped too: a follow, a report.
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: fake.nextId(),
      type: 'Follow',
      actor: fake.actorOf('paul'),
      object: `${board.config.origin}/ap/actor/board`,
    };
    const flag = { ...mastodonFlag([entryUrl(pid)], 'vom Gesperrten'), actor: fake.actorOf('paul') };
    for (const activity of [follow, flag]) assert.equal((await send(activity)).status, 202);
    await queueEmpty();
    assert.equal(
      db().value('SELECT count(*) FROM federation_followers WHERE actor_id = ?', fake.actorOf('paul')),
      0,
      'no follow',
    );
    assert.equal(db().value('SELECT count(*) FROM reports WHERE pid = ?', pid), 0, 'no report');
  });

  test('a ban that lands while a verified reply waits for its Note holds', async () => {
    const pid = annaPosts('Noch eine Frage');
    await remoteReply('otto', pid, 'Vor dem Bann');
    const held = gate.holdNext('note');
    const { activity, id } = reply('otto', pid, 'Während des Banns', { byId: true });
    const sent = send(activity).then((answer) => ({ status: answer.status, text: answer.body }));
    assert.equal((await sent).status, 202);
    await held.reachedBy(new Promise(() => {}));
    const otto = `@otto@${fakeHost}`;
    assert.equal((await mia.post(`/api/mod/user/${encodeURIComponent(otto)}/ban`, { reason: 'Spam' })).status, 200);
    held.release();
    await queueEmpty();
    assert.equal(db().value('SELECT count(*) FROM remote_entries WHERE object_id = ?', id), 0);
  });

  test('a block that lands while a verified reply waits for its Note holds', async () => {
    changeInstance(db(), fakeHost, 'allow', administrator, board.clock.now());
    const pid = annaPosts('Und noch eine');
    const held = gate.holdNext('note');
    const { activity, id } = reply('rita', pid, 'Während der Sperre', { byId: true });
    assert.equal((await send(activity)).status, 202);
    await held.reachedBy(new Promise(() => {}));
    changeInstance(db(), fakeHost, 'block', administrator, board.clock.now());
    held.release();
    await queueEmpty();
    assert.equal(db().value('SELECT count(*) FROM remote_entries WHERE object_id = ?', id), 0);
    changeInstance(db(), fakeHost, 'allow', administrator, board.clock.now());
  });

  test('NodeInfo counts only the board’s own members and entries', async () => {
    const live = db().value<number>('SELECT count(*) FROM entries WHERE deleted = 0');
    const remote = db().value<number>(
      'SELECT count(*) FROM remote_entries r JOIN entries e ON e.pid = r.pid WHERE e.deleted = 0',
    );
    assert.ok(remote > 0, 'remote entries are live');
    const members = db().value<number>("SELECT count(*) FROM users WHERE status = ''");
    const info = (await (await fetch(`${board.url}/nodeinfo/2.1`)).json()) as {
      usage: { localPosts: number; users: { total: number } };
    };
    assert.equal(info.usage.localPosts, live - remote);
    assert.equal(info.usage.users.total, members);
    assert.equal((await visitor(board).get('/api/stats')).body.users, members, 'the public members count too');
  });
});
