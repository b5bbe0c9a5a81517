import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { eventually, startBoard, type TestBoard } from '../helpers.ts';
import { federatedEnv, federationWaitMs, freePorts } from '../helpers/federation.ts';

/**
 * docs/OPERATIONS.md "Federation", "Delivery": the event loop's bookkeeping per delivery stays
 * small. The look for the next due delivery walks past every due delivery of the instances at
 * their bound, so a backlog to one instance made each look after a start a walk over that whole
 * backlog. The test counts the looks through the database's statement hook: one per delivery, and
 * one more that finds nothing at each end, never a second one per delivery.
 */

const backlog = 20;
const lookSql = 'FROM federation_deliveries d JOIN federation_activities a';

describe('a backlog of deliveries to one instance', () => {
  let board: TestBoard;
  let inbox: Server;
  let host = '';
  let posts = 0;

  before(async () => {
    const [boardPort, inboxPort] = await freePorts(2);
    host = `127.0.0.1:${inboxPort}`;
    inbox = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts++;
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => inbox.listen(inboxPort, '127.0.0.1', resolve));
    // No polls while the test counts: only the wake and the deliveries' own ends make the job look.
    board = await startBoard(federatedEnv(boardPort!, [boardPort!, inboxPort!], 'open'), {
      port: boardPort,
      federation: { queuePollMs: 20, delivery: { pollMs: 3_600_000 } },
    });
    await fetch(`${board.url}/ap/actor/board`, { headers: { accept: 'application/activity+json' } });
  });
  after(async () => {
    board?.app.services.db.setFault(undefined);
    await board?.close();
    await new Promise((resolve) => inbox?.close(resolve));
  });

  test('each delivery costs one look for the next, not a second one over the backlog', async () => {
    const db = board.app.services.db;
    const now = board.clock.now();
    db.tx(() => {
      for (let i = 0; i < backlog; i++) {
        const { lastInsertRowid: activity } = db.run(
          "INSERT INTO federation_activities (body, signer_uid, author_uid, kind, created_at) VALUES (?, 0, 0, 'create', ?)",
          JSON.stringify({ type: 'Announce', n: i }),
          now,
        );
        db.run(
          'INSERT INTO federation_deliveries (activity_id, inbox, host, created_at) VALUES (?, ?, ?, ?)',
          activity,
          `http://${host}/inbox`,
          host,
          now,
        );
      }
    });
    let looks = 0;
    db.setFault((sql) => {
      if (sql.includes(lookSql)) looks++;
      return undefined;
    });
    board.app.jobs!.federation!.wake();
    await eventually(
      'the backlog is delivered',
      () => db.value('SELECT count(*) FROM federation_deliveries') === 0,
      federationWaitMs,
    );
    db.setFault(undefined);
    assert.equal(posts, backlog);
    // One look per delivery, one that finds the instance at its bound after the first starts, and
    // one after each of the last two ends.
    assert.ok(looks <= backlog + 3, `${looks} looks for ${backlog} deliveries`);
  });
});
