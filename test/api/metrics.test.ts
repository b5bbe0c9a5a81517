import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { listenOnLoopback } from '../../lib/metrics/listener.ts';
import { assertError, limitsOff, member, post, startBoard, useBoard, visitor } from '../helpers.ts';

/**
 * docs/OPERATIONS.md "Metrics": BOARD_METRICS_PORT puts Prometheus' text format on a second,
 * loopback-only listener.
 */

/** One scrape as series → value; a series is `name{label="value",...}` with the labels sorted, or the bare name. */
type Scrape = Map<string, number>;

async function scrape(metricsUrl: string | undefined): Promise<Scrape> {
  assert.ok(metricsUrl, 'the board has a metrics listener');
  const res = await fetch(`${metricsUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

/** A small reader of the text exposition format: every sample line must parse, comments are HELP and TYPE only. */
function parseExposition(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}="${v}"`)
      .sort();
    // Go's ParseFloat (Prometheus' reader) takes NaN and Inf in any letter case; prom-client writes "Nan" before the first event-loop sample.
    const raw = match[3]!;
    const value = /^nan$/i.test(raw)
      ? NaN
      : /^[+-]?inf$/i.test(raw)
        ? raw.startsWith('-')
          ? -Infinity
          : Infinity
        : Number(raw);
    assert.ok(/^nan$/i.test(raw) || !Number.isNaN(value), `a number: ${line}`);
    samples.set(labels.length ? `${match[1]}{${labels.join(',')}}` : match[1]!, value);
  }
  return samples;
}

/** How far board_response_cache_total{answer,result} moved between two scrapes. */
function cacheMoves(before: Scrape, after: Scrape) {
  return (answer: string, result: string) =>
    value(after, 'board_response_cache_total', { answer, result }) -
    value(before, 'board_response_cache_total', { answer, result });
}

/** A series' value, 0 when the scrape does not have it (a counter never moved). */
function value(samples: Scrape, name: string, labels: Record<string, string> = {}): number {
  const text = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  return samples.get(text ? `${name}{${text}}` : name) ?? 0;
}

const requests = (samples: Scrape, route: string, method: string, status: string) =>
  value(samples, 'board_http_request_duration_seconds_count', { route, method, status });

describe('the metrics listener', () => {
  const t = useBoard({ env: { BOARD_METRICS_PORT: '0' }, members: ['Anna', 'Bert'] });

  test('counts requests per route pattern, method and status class, never by the raw path', async () => {
    const before = await scrape(t.board.metricsUrl);
    const reader = visitor(t.board);
    assert.equal((await reader.get('/api/entry/feed/0')).status, 200);
    assert.equal((await reader.get('/api/entry/feed/3')).status, 200);
    assertError(await reader.get('/api/entry/feed/x'), 400, 'input.invalid', 'page');
    assertError(await reader.get('/api/no/such/path'), 404, 'api.not_found');
    const after = await scrape(t.board.metricsUrl);

    assert.equal(
      requests(after, '/api/entry/feed/:page', 'GET', '2xx') - requests(before, '/api/entry/feed/:page', 'GET', '2xx'),
      2,
    );
    assert.equal(
      requests(after, '/api/entry/feed/:page', 'GET', '4xx') - requests(before, '/api/entry/feed/:page', 'GET', '4xx'),
      1,
    );
    assert.equal(
      requests(after, 'none', 'GET', '4xx') - requests(before, 'none', 'GET', '4xx'),
      1,
      'an unknown path counts under "none"',
    );
    const series = [...after.keys()].filter((key) => key.startsWith('board_http_request_duration_seconds'));
    assert.ok(
      series.some((key) => key.includes('le="0.001"')),
      'a latency histogram with buckets',
    );
    for (const key of series) assert.doesNotMatch(key, /feed\/\d|no\/such/, `route labels are patterns: ${key}`);
  });

  test('counts response-cache hits and misses of feed pages and threads', async () => {
    const pid = await post(t.members.Anna, 'Ein Faden für den Zähler');
    const before = await scrape(t.board.metricsUrl);
    const reader = visitor(t.board);
    for (let i = 0; i < 3; i++) assert.equal((await reader.get('/api/entry/feed/0')).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await reader.get(`/api/entry/${pid}/thread`)).status, 200);
    const after = await scrape(t.board.metricsUrl);
    const moved = cacheMoves(before, after);
    assert.equal(moved('feed', 'miss'), 1, 'the first read after the post builds the page');
    assert.equal(moved('feed', 'hit'), 2);
    assert.equal(moved('thread', 'miss'), 1);
    assert.equal(moved('thread', 'hit'), 1);
  });

  test('counts creates written in groups and the commits they took', async () => {
    const writer = await member(t.board, 'Carla'); // a new account may post only so often: not Anna's last ones
    const before = await scrape(t.board.metricsUrl);
    await post(writer, 'Ein Beitrag für den Schreibzähler');
    const after = await scrape(t.board.metricsUrl);
    const moved = (kind: string) =>
      value(after, 'board_batched_writes_total', { kind }) - value(before, 'board_batched_writes_total', { kind });
    assert.equal(moved('write'), 1);
    assert.equal(moved('commit'), 1);
  });

  test('counts response-cache hits and misses of search pages and documents (Atom feeds, share pages)', async () => {
    await post(t.members.Anna, 'Quittengelee für den Zähler');
    const before = await scrape(t.board.metricsUrl);
    const reader = visitor(t.board);
    for (let i = 0; i < 3; i++) assert.equal((await reader.get('/api/search/0?q=Quittengelee')).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await reader.get('/feed.atom')).status, 200);
    const after = await scrape(t.board.metricsUrl);
    const moved = cacheMoves(before, after);
    assert.equal(moved('search', 'miss'), 1, 'the first search after the post builds the page');
    assert.equal(moved('search', 'hit'), 2);
    assert.equal(moved('document', 'miss'), 1);
    assert.equal(moved('document', 'hit'), 1);
  });

  test('counts refusals per limit group and shows the open reports', async () => {
    const pid = await post(t.members.Bert, 'Bitte melden');
    const reporter = visitor(t.board);
    const before = await scrape(t.board.metricsUrl);
    for (let i = 0; i < 10; i++)
      assert.equal((await reporter.post(`/api/entry/${pid}/report`, { reason: `Grund ${i}` })).status, 200);
    assertError(await reporter.post(`/api/entry/${pid}/report`), 429, 'rate.limited');
    for (const name of ['Anna Neu', 'Anna Neuer'])
      assert.equal((await t.members.Anna.post('/api/user/rename', { user: name })).status, 200);
    assertError(await t.members.Anna.post('/api/user/rename', { user: 'Anna Zuviel' }), 429, 'rate.limited');
    const after = await scrape(t.board.metricsUrl);

    const refused = (kind: string, group: string) =>
      value(after, 'board_limit_refusals_total', { kind, group }) -
      value(before, 'board_limit_refusals_total', { kind, group });
    assert.equal(refused('rate', 'report'), 1);
    assert.equal(refused('write', 'rename'), 1);
    assert.equal(
      value(after, 'board_reports_open') - value(before, 'board_reports_open'),
      10,
      'anonymous reports are all kept',
    );
  });

  test('shows the database, the queues, memory and event-loop delay', async () => {
    const samples = await scrape(t.board.metricsUrl);
    assert.ok(value(samples, 'board_database_size_bytes') > 0);
    assert.ok(samples.has('board_database_wal_size_bytes'));
    assert.ok(samples.has('board_preview_queue_depth'));
    assert.equal(value(samples, 'board_password_hashing_waiting'), 0, 'nobody waits to be hashed now');
    assert.ok(samples.has('board_password_hashing_running'));
    assert.ok(value(samples, 'process_resident_memory_bytes') > 0);
    assert.ok(samples.has('nodejs_eventloop_lag_seconds'));
    assert.ok(samples.has('nodejs_heap_size_used_bytes'));
  });

  test('answers only GET /metrics; /api/health keeps its answer', async () => {
    assert.equal((await fetch(`${t.board.metricsUrl}/`)).status, 404);
    assert.equal((await fetch(`${t.board.metricsUrl}/metrics`, { method: 'POST' })).status, 405);
    assert.equal((await fetch(`${t.board.metricsUrl}/metrics`, { method: 'HEAD' })).status, 200);
    const health = await visitor(t.board).get('/api/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    assert.equal((await visitor(t.board).get('/metrics')).status, 404, "the board's own port has no metrics");
  });
});

describe('preview jobs in the metrics', () => {
  // The fetcher refuses a loopback address at once: a failed job without any network.
  const t = useBoard({ env: { ...limitsOff, BOARD_PREVIEW: '1', BOARD_METRICS_PORT: '0' }, members: ['Carla'] });

  test('a failed preview fetch counts as a failed job', async () => {
    await post(t.members.Carla, 'Siehe http://127.0.0.1:9/nirgends');
    let samples = await scrape(t.board.metricsUrl);
    for (
      const deadline = Date.now() + 10_000;
      value(samples, 'board_preview_jobs_total', { outcome: 'failed' }) < 1;
      samples = await scrape(t.board.metricsUrl)
    ) {
      assert.ok(Date.now() < deadline, 'the job fails within seconds');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(value(samples, 'board_preview_jobs_total', { outcome: 'saved' }), 0);
    assert.equal(value(samples, 'board_preview_queue_depth'), 0, 'a failed link waits a day: nothing is due');
  });
});

describe('loopback only', () => {
  test('BOARD_METRICS_HOST must be a loopback address; the metrics are off without BOARD_METRICS_PORT', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'localhost', 'metrics.example']) {
      assert.throws(
        () => loadConfig({ BOARD_METRICS_PORT: '9464', BOARD_METRICS_HOST: host }),
        (err: Error) =>
          err instanceof ConfigError &&
          err.message ===
            `BOARD_METRICS_HOST: "${host}" is not a loopback address; the metrics listen on 127.0.0.1 or ::1 only`,
      );
    }
    assert.deepEqual(loadConfig({ BOARD_METRICS_PORT: '9464' }).metrics, { port: 9464, host: '127.0.0.1' });
    assert.deepEqual(loadConfig({ BOARD_METRICS_PORT: '9464', BOARD_METRICS_HOST: '::1' }).metrics, {
      port: 9464,
      host: '::1',
    });
    assert.equal(loadConfig({}).metrics, undefined);
    assert.equal(loadConfig({ BOARD_METRICS_PORT: ' ' }).metrics, undefined);
  });

  test('the listener refuses to bind anything but loopback', async () => {
    const server = createServer();
    await assert.rejects(
      listenOnLoopback(server, 0, '0.0.0.0'),
      /refusing to listen on 0\.0\.0\.0: loopback addresses only/,
    );
    assert.equal(server.listening, false);
  });

  test('a board without BOARD_METRICS_PORT has no metrics listener', async () => {
    const board = await startBoard();
    try {
      assert.equal(board.app.metricsServer, undefined);
      assert.equal(board.app.services.metrics, undefined);
      assert.equal(board.metricsUrl, undefined);
    } finally {
      await board.close();
    }
  });
});
