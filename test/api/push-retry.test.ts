import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { maxQueuedPerDevice, maxRetryAfterSeconds, pushRetrySeconds, pushTries } from '../../lib/push/queue.ts';
import { eventually, limitsOff, post, useBoard, type Client, type TestBoard } from '../helpers.ts';
import { startFakeSite, type FakeSite } from '../helpers/previews.ts';
import { refusedPort } from '../helpers/ports.ts';
import { fakeBrowser, pushService } from '../helpers/push.ts';

/**
 * docs/API.md "Web Push", sending: a push the service refuses for a passing reason (429, a 5xx,
 * no connection) is tried again later, on the board's clock, which the test moves; other
 * failures are not. The push service is the decrypting one of test/api/push.test.ts.
 */

const service = pushService();
let site: FakeSite;
/** A port that refuses every connection (allowed for pushes): a push service that is down. */
let deadPort = 0;
const paths = ['/push/anna', '/push/bert', '/push/hang'];

interface Row {
  tries: number;
  not_before: number;
}

/** A push queued again (after a try), of the device. */
const retryOf = (board: TestBoard, endpointPath: string) => queuedFor(board, endpointPath).find((row) => row.tries > 0);

/** The device's queued pushes. */
function queuedFor(board: TestBoard, endpointPath: string): Row[] {
  return board.app.services.db.all<Row>(
    `SELECT o.tries, o.not_before FROM push_outbox o JOIN push_devices d ON d.session_id = o.session_id
     WHERE d.endpoint LIKE ? ORDER BY o.id`,
    `%${endpointPath}`,
  );
}

const receivedAt = (path: string) => service.received.filter((r) => r.path === path);

describe('web push: tries again after a passing failure', () => {
  const t = useBoard({
    prepare: async () => {
      site = await startFakeSite(Object.fromEntries(paths.map((path) => [path, service.handler])));
      deadPort = await refusedPort();
    },
    env: () => ({
      ...limitsOff,
      BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
      BOARD_PREVIEW_PORTS: `${site.port},${deadPort}`,
    }),
    start: { push: { pollMs: 20 } },
    members: ['Anna', 'Bert', 'Carla'],
  });
  after(() => site?.close());
  afterEach(() => {
    service.script.clear();
    service.answers.clear();
  });
  const stats = () => t.board.app.jobs!.push!.stats();

  async function subscribe(client: Client, endpoint: string): Promise<void> {
    const browser = fakeBrowser();
    service.devices.set(new URL(endpoint).pathname, browser);
    const answer = await client.post('/api/user/push', { endpoint, p256dh: browser.p256dh, auth: browser.auth });
    assert.equal(answer.status, 200, answer.text);
  }

  test('a 503 with Retry-After: the same push again once that time has come on the board’s clock, not before', async () => {
    const { Anna, Bert, Carla } = t.members;
    service.setBoardKey((await Anna.get('/api/user/push')).body.public_key);
    await subscribe(Anna, site.url('/push/anna'));
    await subscribe(Bert, site.url('/push/bert'));
    service.script.set('/push/anna', [{ status: 503, headers: { 'retry-after': '120' } }]);
    const start = t.board.clock.now();
    const retried = stats().outcomes.retried;
    await post(Bert, 'Antwort an Anna.', await post(Anna, 'Annas Frage.'));
    await eventually('the first try was refused and queued again', () => stats().outcomes.retried === retried + 1);
    assert.equal(receivedAt('/push/anna').length, 1);
    assert.deepEqual(queuedFor(t.board, '/push/anna'), [{ tries: 1, not_before: start + 120 }]);

    // One second early: a push to another device goes out, Anna's waits.
    t.board.clock.advance(119);
    const delivered = stats().outcomes.delivered;
    await post(Carla, 'Antwort an Bert.', await post(Bert, 'Berts Frage.'));
    await eventually('Bert’s push went out', () => stats().outcomes.delivered === delivered + 1);
    assert.deepEqual(
      queuedFor(t.board, '/push/anna'),
      [{ tries: 1, not_before: start + 120 }],
      'the pass that sent Bert’s (a later notification) left Anna’s in the queue',
    );
    assert.equal(receivedAt('/push/anna').length, 1);

    t.board.clock.advance(1);
    await eventually('the second try', () => receivedAt('/push/anna').length === 2);
    const [first, second] = receivedAt('/push/anna');
    assert.equal(second!.text, first!.text, 'the same push');
    await eventually('delivered and out of the queue', () => queuedFor(t.board, '/push/anna').length === 0);
  });

  test(`500s: tries ${pushTries} times, waiting ${pushRetrySeconds} s and doubling, then gives up`, async () => {
    const { Anna, Carla } = t.members;
    service.script.set(
      '/push/anna',
      Array.from({ length: pushTries }, () => ({ status: 500 })),
    );
    const sent = receivedAt('/push/anna').length;
    const failed = stats().outcomes.failed;
    await post(Carla, 'Noch eine Antwort an Anna.', await post(Anna, 'Annas zweite Frage.'));
    for (let tries = 1; tries < pushTries; tries++) {
      await eventually(`try ${tries}`, () => receivedAt('/push/anna').length === sent + tries);
      const wait = pushRetrySeconds * 2 ** (tries - 1);
      const due = await eventually(`queued after try ${tries}`, () => retryOf(t.board, '/push/anna'));
      assert.deepEqual(due, { tries, not_before: t.board.clock.now() + wait });
      t.board.clock.advance(wait);
    }
    await eventually('given up after the last try', () => stats().outcomes.failed === failed + 1);
    assert.equal(receivedAt('/push/anna').length, sent + pushTries);
    assert.deepEqual(queuedFor(t.board, '/push/anna'), []);
    assert.ok(t.board.logs.some((line) => line.includes(`(try ${pushTries} of ${pushTries}; given up)`)));
  });

  test(`a 429's Retry-After is honoured up to ${maxRetryAfterSeconds} s; a 400 is not tried again`, async () => {
    const { Anna, Carla } = t.members;
    service.script.set('/push/anna', [{ status: 429, headers: { 'retry-after': '86400' } }, { status: 400 }]);
    const sent = receivedAt('/push/anna').length;
    const failed = stats().outcomes.failed;
    await post(Carla, 'Zu schnell.', await post(Anna, 'Annas dritte Frage.'));
    const due = await eventually('queued after the 429', () => retryOf(t.board, '/push/anna'));
    assert.deepEqual(due, { tries: 1, not_before: t.board.clock.now() + maxRetryAfterSeconds });
    t.board.clock.advance(maxRetryAfterSeconds);
    await eventually('the 400 ends it', () => stats().outcomes.failed === failed + 1);
    assert.equal(receivedAt('/push/anna').length, sent + 2);
    assert.deepEqual(queuedFor(t.board, '/push/anna'), []);
  });

  test('a push service that is down (no connection) is tried again', async () => {
    const { Bert, Carla } = t.members;
    const endpoint = `http://127.0.0.1:${deadPort}/push/tot`;
    const browser = fakeBrowser();
    const answer = await Carla.post('/api/user/push', { endpoint, p256dh: browser.p256dh, auth: browser.auth });
    assert.equal(answer.status, 200, answer.text);
    await post(Bert, 'Antwort an Carla.', await post(Carla, 'Carlas Frage.'));
    const due = await eventually('queued again', () => retryOf(t.board, '/push/tot'));
    assert.deepEqual(due, { tries: 1, not_before: t.board.clock.now() + pushRetrySeconds });
    assert.ok(t.board.logs.some((line) => line.startsWith(`push to http://127.0.0.1:${deadPort}: retried: `)));
  });

  test(`a retry never grows a device's queue past ${maxQueuedPerDevice}`, async () => {
    const { Bert, Carla } = t.members;
    await subscribe(Bert, site.url('/push/hang'));
    const hang = service.holdHang();
    const top = await post(Bert, 'Bert bekommt viel Post.');
    await post(Carla, 'Die erste hängt.', top);
    await hang.arrival;
    // While the first is on its way, the queue fills up to its bound.
    for (let i = 0; i < maxQueuedPerDevice; i++) await post(Carla, `Antwort ${i}.`, top);
    assert.equal(queuedFor(t.board, '/push/hang').length, maxQueuedPerDevice);
    service.script.set('/push/hang', [{ status: 503 }]);
    const { retried, failed } = stats().outcomes;
    hang.release();
    await eventually('the 503 is given up: the queue is full', () => stats().outcomes.failed === failed + 1);
    assert.equal(stats().outcomes.retried, retried);
    await eventually('the queued ones go out', () => receivedAt('/push/hang').length === 1 + maxQueuedPerDevice);
    await eventually('the queue is empty', () => queuedFor(t.board, '/push/hang').length === 0);
  });
});
