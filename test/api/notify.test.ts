import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { maxPendingNotifications, startNotifier } from '../../lib/notify.ts';
import { eventually, limitsOff, post, useBoard, visitor } from '../helpers.ts';
import { startFakeSite, type FakeSite } from '../preview-helpers.ts';

/**
 * BOARD_NOTIFY_URL (docs/API.md "Notifications"): a plain-text German POST when an entry gets its
 * first open report and when its open reports reach 5; in the background, 5 s per try, at most 3
 * tries with back-off; a local fake webhook stands in for ntfy.
 */

interface Received {
  body: string;
  contentType: string;
}

/** A fake webhook: records every POST; `mode` decides the answer. */
async function startWebhook(): Promise<FakeSite & { received: Received[]; mode: 'ok' | 'fail' | 'hang'; held: ServerResponse[] }> {
  const hook = Object.assign(await startFakeSite(), { received: [] as Received[], mode: 'ok' as 'ok' | 'fail' | 'hang', held: [] as ServerResponse[] });
  hook.route('/hook', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hook.received.push({ body: Buffer.concat(chunks).toString('utf8'), contentType: String(req.headers['content-type']) });
      if (hook.mode === 'hang') hook.held.push(res);
      else res.writeHead(hook.mode === 'ok' ? 200 : 503).end();
    });
  });
  return hook;
}

describe('report notifications on a board with BOARD_NOTIFY_URL', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  const t = useBoard({
    prepare: async () => { hook = await startWebhook(); },
    env: () => ({ ...limitsOff, BOARD_NOTIFY_URL: hook.url('/hook'), BOARD_ORIGIN: 'https://board.example' }),
    start: { notify: { timeoutMs: 300, backoffMs: 10 } },
    members: ['Anna', 'Bert'],
    moderators: ['Mia'],
  });
  after(() => hook.close());

  test('the first open report of an entry sends its address as German plain text', async () => {
    const pid = await post(t.members.Anna, 'gemeldet');
    assert.equal((await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'geheimer Grund' })).status, 200);
    await eventually(() => hook.received.length === 1, 'the message');
    assert.deepEqual(hook.received[0], { body: `Neue Meldung im Board: https://board.example/e/${pid}`, contentType: 'text/plain; charset=utf-8' });
    assert.doesNotMatch(hook.received[0]!.body, /geheimer Grund|gemeldet/, 'neither the reason nor the text');
  });

  test('reports two to four send nothing, the fifth sends again, the sixth not; a repeat stores and sends nothing', async () => {
    hook.received.length = 0;
    const pid = await post(t.members.Anna, 'oft gemeldet');
    await t.members.Bert.post(`/api/entry/${pid}/report`);
    await t.members.Bert.post(`/api/entry/${pid}/report`); // a repeat: no new report
    for (let i = 2; i <= 6; i++) await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually(() => hook.received.length === 2, 'two messages');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(hook.received.map((r) => r.body), [
      `Neue Meldung im Board: https://board.example/e/${pid}`,
      `5 offene Meldungen zu einem Beitrag im Board: https://board.example/e/${pid}`,
    ]);
  });

  test('after a dismiss, the next report is the first open one again', async () => {
    hook.received.length = 0;
    const pid = await post(t.members.Anna, 'wieder gemeldet');
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually(() => hook.received.length === 1, 'the first message');
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`)).status, 200);
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually(() => hook.received.length === 2, 'a message for the new first report');
  });

  test('never on the request path: a hanging webhook does not hold the report up; failures are logged without any client address', async () => {
    hook.received.length = 0;
    hook.mode = 'hang';
    const pid = await post(t.members.Anna, 'Webhook hängt');
    const reporter = t.board.client({ ip: '203.0.113.77' });
    const answer = await reporter.post(`/api/entry/${pid}/report`);
    assert.equal(answer.status, 200, 'answered while the webhook holds the message');
    await eventually(() => t.board.logs.some((line) => /notify: no answer within 300 ms; gave up after 3 tries/.test(line)), 'three timed-out tries', 5_000);
    assert.equal(hook.received.length, 3, 'three tries');
    for (const res of hook.held.splice(0)) res.destroy();
    const notifyLines = t.board.logs.filter((line) => line.startsWith('notify'));
    assert.ok(notifyLines.length >= 3);
    for (const line of notifyLines) assert.doesNotMatch(line, /203\.0\.113\.77|hook|127\.0\.0\.1/, `no client address and no webhook URL: ${line}`);
    hook.mode = 'ok';
  });
});

describe('the notification sender', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  before(async () => { hook = await startWebhook(); });
  after(() => hook.close());

  test('a webhook error is tried 3 times with back-off, then given up with a log line', async () => {
    hook.received.length = 0;
    hook.mode = 'fail';
    const logs: string[] = [];
    const notifier = startNotifier(hook.url('/hook'), (line) => logs.push(line), { timeoutMs: 1000, backoffMs: 20 });
    notifier.send('eins');
    await eventually(() => logs.length === 3, 'three log lines');
    assert.deepEqual(logs, [
      'notify: the webhook answered 503; trying again (2 of 3)',
      'notify: the webhook answered 503; trying again (3 of 3)',
      'notify: the webhook answered 503; gave up after 3 tries',
    ]);
    assert.equal(hook.received.length, 3);
    hook.mode = 'ok';
    notifier.send('zwei');
    await eventually(() => hook.received.length === 4, 'the next message still goes out');
    await notifier.stop();
  });

  test('an unreachable webhook is logged by cause', async () => {
    const closed = await startFakeSite();
    await closed.close(); // a port nobody listens on any more
    const logs: string[] = [];
    const notifier = startNotifier(closed.url('/hook'), (line) => logs.push(line), { backoffMs: 1 });
    notifier.send('nirgends');
    await eventually(() => logs.length === 3, 'three log lines');
    assert.match(logs[2]!, /^notify: cannot reach the webhook \(.*ECONNREFUSED.*\); gave up after 3 tries$/);
    await notifier.stop();
  });

  test(`at most ${maxPendingNotifications} messages wait: past that the oldest is dropped with a log line; stop() drops the rest`, async () => {
    hook.received.length = 0;
    hook.mode = 'hang';
    const logs: string[] = [];
    const notifier = startNotifier(hook.url('/hook'), (line) => logs.push(line), { timeoutMs: 10_000 });
    notifier.send('wird gesendet');
    await eventually(() => hook.received.length === 1, 'the first message is in flight');
    for (let i = 1; i <= maxPendingNotifications + 2; i++) notifier.send(`Nr. ${i}`);
    assert.deepEqual(logs, [1, 2].map(() => `notify: more than ${maxPendingNotifications} messages waiting; dropped the oldest`));
    await notifier.stop();
    assert.equal(logs.at(-1), `notify: stopping; ${maxPendingNotifications + 1} messages not sent`);
    for (const res of hook.held.splice(0)) res.destroy();
    notifier.send('nach dem Stopp');
    assert.equal(hook.received.length, 1, 'nothing is sent after stop()');
    hook.mode = 'ok';
  });
});
