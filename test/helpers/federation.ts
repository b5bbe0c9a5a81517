import assert from 'node:assert/strict';
import type { Actor } from '@fedify/fedify/vocab';
import type { Db } from '../../lib/db/db.ts';
import { changeInstance } from '../../lib/federation/instances.ts';
import { askToFollow, stopFollowing } from '../../lib/federation/follows.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { startBoard, type StartOptions, type TestBoard } from './board.ts';
import { eventually } from './eventually.ts';
import { activityStreams, startFakeInstance, type FakeInstance, type FakeInstanceOptions } from './fake-instance.ts';
import { visitor } from './members.ts';
import { freePorts } from './ports.ts';

export { freePorts } from './ports.ts';

/**
 * Federation between test boards on 127.0.0.1 (docs/OPERATIONS.md "Federation"): each board's
 * BOARD_ORIGIN names its own port, and the fetch guard's allowances (BOARD_PREVIEW_ALLOW,
 * BOARD_PREVIEW_PORTS) let it reach the others, as outside tools test a board.
 */

/** The settings of a federated test board on `port` that may reach `ports` on loopback. */
export function federatedEnv(port: number, ports: number[], mode = 'allowlist'): Record<string, string> {
  return {
    BOARD_FEDERATION: mode,
    BOARD_ORIGIN: `http://127.0.0.1:${port}`,
    BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
    BOARD_PREVIEW_PORTS: ports.join(','),
  };
}

/**
 * Short polls and refusals answered at once, so a test waits for the jobs a few milliseconds, never
 * a second. The pace's hold has its own tests (test/api/federation-pace.test.ts).
 */
export const quickFederation: NonNullable<StartOptions['federation']> = {
  queuePollMs: 20,
  delivery: { pollMs: 20 },
  inboxPace: { hold: async () => {} },
};

/** Boards that know each other's ports, each allowing the others (allowlist mode unless `mode` says). */
export async function startFederatedBoards(
  count: number,
  options: {
    mode?: string;
    env?: Record<string, string>;
    federation?: (index: number) => StartOptions['federation'];
    /** Whether board `by` allows board `other` (indexes); default every other board. */
    allows?: (by: number, other: number) => boolean;
    /** More start options of board `index` (a gate's `images`…). */
    start?: (index: number) => Omit<StartOptions, 'port' | 'federation'>;
  } = {},
): Promise<TestBoard[]> {
  const ports = await freePorts(count);
  const boards: TestBoard[] = [];
  for (const [i, port] of ports.entries()) {
    boards.push(
      await startBoard(
        { ...federatedEnv(port, ports, options.mode), ...options.env },
        { ...options.start?.(i), port, federation: { ...quickFederation, ...options.federation?.(i) } },
      ),
    );
  }
  // Fedify loads, and the Group's keys are made, on first use (seconds on a busy machine): done now,
  // so no request of a test pays for it.
  await Promise.all(
    boards.map((board) => fetch(`${board.url}/ap/actor/board`, { headers: { accept: 'application/activity+json' } })),
  );
  for (const [by, board] of boards.entries())
    for (const [other, port] of ports.entries())
      if (other !== by && (options.allows?.(by, other) ?? true))
        changeInstance(board.app.services.db, `127.0.0.1:${port}`, 'allow', administrator, board.clock.now());
  return boards;
}

/**
 * A board in allowlist mode among fake instances on 127.0.0.1, one per entry of `instances` (its
 * options), the first `allowed` of them allowed (all by default); `spare` more ports the board may
 * reach where nothing listens (an instance that is not up). Start options add to quickFederation.
 */
export async function startBoardAmongInstances(options: {
  instances: FakeInstanceOptions[];
  allowed?: number;
  spare?: number;
  env?: Record<string, string>;
  start?: Omit<StartOptions, 'port'>;
}): Promise<{ board: TestBoard; fakes: FakeInstance[]; spareHosts: string[] }> {
  const [boardPort, ...ports] = await freePorts(1 + options.instances.length + (options.spare ?? 0));
  const fakes: FakeInstance[] = [];
  for (const [i, instance] of options.instances.entries()) fakes.push(await startFakeInstance(ports[i]!, instance));
  const board = await startBoard(
    { ...federatedEnv(boardPort!, [boardPort!, ...ports]), ...options.env },
    { ...options.start, port: boardPort, federation: { ...quickFederation, ...options.start?.federation } },
  );
  for (const fake of fakes.slice(0, options.allowed ?? fakes.length))
    changeInstance(board.app.services.db, fake.host, 'allow', administrator, board.clock.now());
  const spareHosts = ports.slice(fakes.length).map((port) => `127.0.0.1:${port}`);
  return { board, fakes, spareHosts };
}

/**
 * The edit rules of a remote entry (first text "Erste Fassung"), whichever way its Updates come
 * (sent by the author's server, or relayed by a Group): another actor's Update changes nothing, the
 * author's with a link is refused by the entry gate while the account is new (as a member's edit
 * would be), the author's plain one is taken and marks the entry edited. `update` sends one Update
 * by the stranger or the author; `settled` waits until the inbox has handled what was sent.
 */
export async function assertRemoteEdits(
  board: TestBoard,
  pid: number,
  update: (by: 'stranger' | 'author', html: string) => Promise<void>,
  settled: () => Promise<void>,
): Promise<void> {
  const entryJson = async () => (await visitor(board).get(`/api/entry/${pid}/thread`)).body.entry;
  await update('stranger', '<p>Fremde Fassung</p>');
  await update('author', '<p>Mit Link http://example.org/werbung</p>');
  await settled();
  let entry = await entryJson();
  assert.equal(entry.content, 'Erste Fassung');
  assert.equal(entry.edited_at, undefined);
  await update('author', '<p>Zweite Fassung</p>');
  await settled();
  entry = await entryJson();
  assert.equal(entry.content, 'Zweite Fassung');
  assert.equal(typeof entry.edited_at, 'number');
}

/** How long a test waits for another board's answer: keys are made on first need, which takes seconds on a busy machine. */
export const federationWaitMs = 30_000;

/** An entry's yes and no votes, as any reader sees them. */
export async function votesOf(board: TestBoard, pid: number): Promise<{ yes: number; no: number }> {
  const { yes, no } = (await visitor(board).get(`/api/entry/${pid}/votes`)).body;
  return { yes, no };
}

/**
 * Waits until every activity `fake` sent to `board` before is handled. Why a marker: the inbox
 * handles activities one after another, so a vote sent last (on `markerPid`, by `fake`'s actor
 * "marker", Like and Dislike in turn) has come in only after all before it; what was dropped
 * leaves nothing else to wait for.
 */
export function inboxSettler(board: TestBoard, fake: FakeInstance, markerPid: number): () => Promise<void> {
  let mode: 'Like' | 'Dislike' = 'Dislike';
  return async () => {
    mode = mode === 'Like' ? 'Dislike' : 'Like';
    const answer = await fake.send(`${board.url}/ap/inbox`, {
      '@context': activityStreams,
      id: fake.nextId(),
      type: mode,
      actor: fake.actorOf('marker'),
      object: `${board.config.origin}/e/${markerPid}`,
    });
    if (answer.status !== 202) throw new Error(`the marker vote: ${answer.status} ${answer.body}`);
    const want = mode === 'Like' ? { yes: 1, no: 0 } : { yes: 0, no: 1 };
    await eventually(
      'the marker vote is in',
      async () => {
        const tally = await votesOf(board, markerPid);
        return tally.yes === want.yes && tally.no === want.no;
      },
      federationWaitMs,
    );
  };
}

/** The actor at this URL or handle, as `board` sees it through its own guarded loader. */
export async function lookUpActor(board: TestBoard, what: string): Promise<Actor> {
  const ctx = (await board.app.services.federation!.runtime()).context();
  const found = await ctx.lookupObject(what);
  if (!found || !('inboxId' in found)) throw new Error(`${what}: no actor`);
  return found as Actor;
}

/** `board`'s Group asks to follow `actor` (a test board has no other way to follow); its job sends the Follow. */
export function groupFollows(board: TestBoard, actor: Actor): void {
  askToFollow(board.app.services.db, 0, actor, board.config.origin, board.clock.now());
  board.app.jobs?.federation?.wake();
}

/** `board`'s Group stops following the actor with this id; its job sends the Undo. */
export function groupUnfollows(board: TestBoard, actorId: string): void {
  stopFollowing(board.app.services.db, 0, actorId, board.clock.now());
  board.app.jobs?.federation?.wake();
}

/**
 * A follower on a fake instance, stored as an accepted Follow would store it: the actor
 * `http://{host}/users/{name}` with its own inbox and, unless `sharedInbox` is '', the instance's
 * shared inbox (default `http://{host}/ap/inbox`), following `target` (a uid; 0 the Group).
 */
export function storeFollower(
  db: Db,
  follower: { host: string; name: string; target?: number; sharedInbox?: string },
  now: number,
): string {
  const actor = `http://${follower.host}/users/${follower.name}`;
  db.run(
    'INSERT INTO remote_actors (id, host, inbox, shared_inbox, fetched_at) VALUES (?, ?, ?, ?, ?)',
    actor,
    follower.host,
    `${actor}/inbox`,
    follower.sharedInbox ?? `http://${follower.host}/ap/inbox`,
    now,
  );
  db.run(
    'INSERT INTO federation_followers (target_uid, actor_id, follow_id, host, created_at) VALUES (?, ?, ?, ?, ?)',
    follower.target ?? 0,
    actor,
    `${actor}#follow`,
    follower.host,
    now,
  );
  return actor;
}
