import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startNotifier, type NotifyOptions } from '../../lib/outgoing/operator-webhook.ts';
import { eventually, limitsOff, post, useBoard, visitor } from '../helpers.ts';
import { startFakeSite, type FakeSite } from '../helpers/previews.ts';

/**
 * BOARD_NOTIFY_URL (docs/API.md "Notifications"): a plain-text German POST when an entry gets its
 * first open report and when its open reports reach 5; in the background, 5 s per try, at most 3
 * tries with back-off; one message on its way at a time and a gap after each, the reports
 * meanwhile counted into the next message. A local fake webhook stands in for ntfy; the tests hold
 * the webhook's answers and the sender's waits at gates they open.
 */

interface Received {
  body: string;
  contentType: string;
}

/** A fake webhook: records every POST; `mode` decides the answer ('hang': held until `release`). */
async function startWebhook(): Promise<
  FakeSite & { received: Received[]; mode: 'ok' | 'fail' | 'hang'; held: ServerResponse[]; release(): void }
> {
  const hook = Object.assign(await startFakeSite(), {
    received: [] as Received[],
    mode: 'ok' as 'ok' | 'fail' | 'hang',
    held: [] as ServerResponse[],
    release() {
      for (const res of hook.held.splice(0)) res.writeHead(200).end();
    },
  });
  hook.route('/hook', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hook.received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        contentType: String(req.headers['content-type']),
      });
      if (hook.mode === 'hang') hook.held.push(res);
      else res.writeHead(hook.mode === 'ok' ? 200 : 503).end();
    });
  });
  return hook;
}

describe('report notifications on a board with BOARD_NOTIFY_URL', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  const t = useBoard({
    prepare: async () => {
      hook = await startWebhook();
    },
    env: () => ({ ...limitsOff, BOARD_NOTIFY_URL: hook.url('/hook'), BOARD_ORIGIN: 'https://board.example' }),
    start: { notify: { timeoutMs: 300, backoffMs: 10, gapMs: 0 } },
    members: ['Anna', 'Bert'],
    moderators: ['Mia'],
  });
  after(() => hook.close());

  test('the first open report of an entry sends its address as German plain text', async () => {
    const pid = await post(t.members.Anna, 'gemeldet');
    assert.equal((await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'geheimer Grund' })).status, 200);
    await eventually('the message', () => hook.received.length === 1);
    assert.deepEqual(hook.received[0], {
      body: `Neue Meldung im Board: https://board.example/e/${pid}`,
      contentType: 'text/plain; charset=utf-8',
    });
    assert.doesNotMatch(hook.received[0]!.body, /geheimer Grund|gemeldet/, 'neither the reason nor the text');
  });

  test('reports two to four send nothing, the fifth sends again, the sixth not; a repeat stores and sends nothing', async () => {
    hook.received.length = 0;
    const pid = await post(t.members.Anna, 'oft gemeldet');
    await t.members.Bert.post(`/api/entry/${pid}/report`);
    await t.members.Bert.post(`/api/entry/${pid}/report`); // a repeat: no new report
    for (let i = 2; i <= 6; i++) await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually('two messages', () => hook.received.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      hook.received.map((r) => r.body),
      [
        `Neue Meldung im Board: https://board.example/e/${pid}`,
        `5 offene Meldungen zu einem Beitrag im Board: https://board.example/e/${pid}`,
      ],
    );
  });

  test('after a dismiss, the next report is the first open one again', async () => {
    hook.received.length = 0;
    const pid = await post(t.members.Anna, 'wieder gemeldet');
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually('the first message', () => hook.received.length === 1);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`)).status, 200);
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    await eventually('a message for the new first report', () => hook.received.length === 2);
  });

  test('never on the request path: a hanging webhook does not hold the report up; failures are logged without any client address', async () => {
    hook.received.length = 0;
    hook.mode = 'hang';
    const pid = await post(t.members.Anna, 'Webhook hängt');
    const reporter = t.board.client({ ip: '203.0.113.77' });
    const answer = await reporter.post(`/api/entry/${pid}/report`);
    assert.equal(answer.status, 200, 'answered while the webhook holds the message');
    await eventually(
      'three timed-out tries',
      () => t.board.logs.some((line) => /notify: no answer within 300 ms; gave up after 3 tries/.test(line)),
      5_000,
    );
    assert.equal(hook.received.length, 3, 'three tries');
    for (const res of hook.held.splice(0)) res.destroy();
    const notifyLines = t.board.logs.filter((line) => line.startsWith('notify'));
    assert.ok(notifyLines.length >= 3);
    for (const line of notifyLines)
      assert.doesNotMatch(line, /203\.0\.113\.77|hook|127\.0\.0\.1/, `no client address and no webhook URL: ${line}`);
    hook.mode = 'ok';
  });
});

describe('30 anonymous reports from 30 addresses while the webhook is slow', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  const t = useBoard({
    prepare: async () => {
      hook = await startWebhook();
    },
    env: () => ({
      ...limitsOff,
      BOARD_TRUST_PROXY: '1',
      BOARD_METRICS_PORT: '0',
      BOARD_NOTIFY_URL: hook.url('/hook'),
      BOARD_ORIGIN: 'https://board.example',
    }),
    // No gap and no timeout that could decide: the webhook's gate alone holds the sender.
    start: { notify: { timeoutMs: 600_000, gapMs: 0 } },
    members: ['Anna'],
  });
  after(() => hook.close());

  test('send two messages: the first report, then one that counts the other 29; the metrics say so', async () => {
    hook.mode = 'hang';
    const pids: number[] = [];
    for (let i = 0; i < 30; i++) pids.push(await post(t.members.Anna, `Beitrag ${i}`));
    const report = (i: number) => t.board.client({ ip: `198.51.100.${i + 1}` }).post(`/api/entry/${pids[i]}/report`);
    assert.equal((await report(0)).status, 200);
    await eventually('the first message is on its way', () => hook.received.length === 1);
    for (let i = 1; i < 30; i++) assert.equal((await report(i)).status, 200);
    assert.equal(hook.received.length, 1, 'nothing more while the first is on its way');
    hook.mode = 'ok';
    hook.release();
    await eventually('the message that counts the rest', () => hook.received.length === 2);
    const addresses = pids
      .slice(1, 6)
      .map((pid) => `https://board.example/e/${pid}`)
      .join(' ');
    assert.deepEqual(
      hook.received.map((r) => r.body),
      [
        `Neue Meldung im Board: https://board.example/e/${pids[0]}`,
        `Meldungen im Board seit der letzten Nachricht: 29 Beiträge neu gemeldet. ${addresses} … Alle offenen Meldungen: https://board.example/mod`,
      ],
    );
    const metrics = await (await fetch(`${t.board.metricsUrl}/metrics`)).text();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(metrics)?.[1]);
    assert.equal(value('board_notify_messages_total{outcome="sent"}'), 2);
    assert.equal(value('board_notify_messages_total{outcome="failed"}'), 0);
    assert.equal(value('board_notify_reports_total{outcome="alone"}'), 1);
    assert.equal(value('board_notify_reports_total{outcome="coalesced"}'), 29);
    assert.equal(value('board_notify_reports_total{outcome="unsent"}'), 0);
    assert.equal(hook.received.length, 2, 'and no third');
  });
});

/** A sender's waits (back-off and gap) held until the test opens them; `ms` is what each asked for. */
function sleepGate() {
  const waits: { ms: number; open(): void }[] = [];
  const sleep: NonNullable<NotifyOptions['sleep']> = (ms, signal) =>
    new Promise<void>((resolve) => {
      waits.push({ ms, open: resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  return { waits, sleep };
}

const origin = 'https://board.example';
const first = (pid: number) => ({ pid, openReports: 1 });

describe('the notification sender', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  before(async () => {
    hook = await startWebhook();
  });
  after(() => hook.close());

  test('after a message it waits a minute; the reports meanwhile go out as one message that counts them', async () => {
    hook.received.length = 0;
    hook.mode = 'ok';
    const gate = sleepGate();
    const notifier = startNotifier(hook.url('/hook'), origin, () => {}, { sleep: gate.sleep });
    notifier.send(first(1));
    await eventually('the gap after the first message', () => gate.waits.length === 1);
    assert.equal(gate.waits[0]!.ms, 60_000);
    notifier.send(first(2));
    notifier.send(first(3));
    notifier.send({ pid: 1, openReports: 5 });
    assert.equal(hook.received.length, 1, 'nothing during the gap');
    gate.waits[0]!.open();
    await eventually('the next message', () => hook.received.length === 2);
    assert.deepEqual(
      hook.received.map((r) => r.body),
      [
        `Neue Meldung im Board: ${origin}/e/1`,
        `Meldungen im Board seit der letzten Nachricht: 2 Beiträge neu gemeldet, 1 Beitrag mit 5 offenen Meldungen. ${origin}/e/2 ${origin}/e/3 ${origin}/e/1 Alle offenen Meldungen: ${origin}/mod`,
      ],
    );
    await eventually('a gap after that one too', () => gate.waits.length === 2);
    gate.waits[1]!.open();
    assert.deepEqual(notifier.stats(), {
      messages: { sent: 2, failed: 0 },
      notices: { alone: 1, coalesced: 3, unsent: 0 },
    });
    await notifier.stop();
  });

  test('a webhook error is tried 3 times with back-off, then given up; the next message counts its report', async () => {
    hook.received.length = 0;
    hook.mode = 'fail';
    const logs: string[] = [];
    const gate = sleepGate();
    const notifier = startNotifier(hook.url('/hook'), origin, (line) => logs.push(line), {
      timeoutMs: 1000,
      backoffMs: 20,
      sleep: gate.sleep,
    });
    notifier.send(first(1));
    await eventually('the first back-off', () => gate.waits.length === 1);
    gate.waits[0]!.open();
    await eventually('the second back-off', () => gate.waits.length === 2);
    gate.waits[1]!.open();
    await eventually('three log lines', () => logs.length === 3);
    assert.deepEqual(
      gate.waits.map((w) => w.ms),
      [20, 40],
    );
    assert.deepEqual(logs, [
      'notify: the webhook answered 503; trying again (2 of 3)',
      'notify: the webhook answered 503; trying again (3 of 3)',
      'notify: the webhook answered 503; gave up after 3 tries; the next message counts its reports',
    ]);
    assert.equal(hook.received.length, 3);
    assert.deepEqual(notifier.stats().messages, { sent: 0, failed: 1 });
    hook.mode = 'ok';
    notifier.send(first(2));
    await eventually('the next message still goes out', () => hook.received.length === 4);
    assert.equal(
      hook.received[3]!.body,
      `Meldungen im Board seit der letzten Nachricht: 2 Beiträge neu gemeldet. ${origin}/e/1 ${origin}/e/2 Alle offenen Meldungen: ${origin}/mod`,
    );
    await notifier.stop();
    assert.deepEqual(notifier.stats(), {
      messages: { sent: 1, failed: 1 },
      notices: { alone: 0, coalesced: 2, unsent: 0 },
    });
  });

  test('an unreachable webhook is logged by cause', async () => {
    const closed = await startFakeSite();
    await closed.close(); // a port nobody listens on any more
    const logs: string[] = [];
    const notifier = startNotifier(closed.url('/hook'), origin, (line) => logs.push(line), { backoffMs: 1 });
    notifier.send(first(1));
    await eventually('three log lines', () => logs.length === 3);
    assert.match(
      logs[2]!,
      /^notify: cannot reach the webhook \(.*ECONNREFUSED.*\); gave up after 3 tries; the next message counts its reports$/,
    );
    await notifier.stop();
  });

  test('while a message is on its way, any number of reports wait as one count; stop() drops it with a log line and the metric', async () => {
    hook.received.length = 0;
    hook.mode = 'hang';
    const logs: string[] = [];
    const notifier = startNotifier(hook.url('/hook'), origin, (line) => logs.push(line), { timeoutMs: 600_000 });
    notifier.send(first(1));
    await eventually('the first message is in flight', () => hook.received.length === 1);
    for (let pid = 2; pid <= 1000; pid++) notifier.send(first(pid));
    assert.deepEqual(logs, [], 'nothing dropped, nothing logged');
    await notifier.stop();
    assert.deepEqual(logs, ['notify: stopping; 1000 reports not sent']);
    assert.deepEqual(notifier.stats(), {
      messages: { sent: 0, failed: 0 },
      notices: { alone: 0, coalesced: 0, unsent: 1000 },
    });
    for (const res of hook.held.splice(0)) res.destroy();
    notifier.send(first(1001));
    assert.equal(hook.received.length, 1, 'nothing is sent after stop()');
    hook.mode = 'ok';
  });
});
