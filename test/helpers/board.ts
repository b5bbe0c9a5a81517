import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApp, type App, type AppOptions } from '../../lib/app.ts';
import { movableClock } from '../../lib/clock.ts';
import { loadConfig, type Config } from '../../lib/config.ts';
import { listenOnLoopback } from '../../lib/metrics/listener.ts';
import { Client } from './client.ts';
import { emptyFolder } from './folders.ts';
import { prepareDataDir } from '../../lib/host/folders.ts';
import { quickHashes } from './quick-hashes.ts';

/** Seconds in a day, for moving the board's clock. */
export const day = 86_400;

/**
 * BOARD_LIMITS=0: the abuse limits and brakes off (docs/OPERATIONS.md "Settings"), for tests that write faster
 * than a person would (many entries, links and images from brand-new accounts in a second).
 * SPEC's per-address limits stay on. test/api/write-limits.test.ts tests the limits themselves.
 */
export const limitsOff: Record<string, string> = { BOARD_LIMITS: '0' };

export interface TestBoard {
  url: string;
  /** The metrics listener's base URL (scrape `${metricsUrl}/metrics`), when BOARD_METRICS_PORT is set. */
  metricsUrl?: string;
  app: App;
  config: Config;
  clock: ReturnType<typeof movableClock>;
  logs: string[];
  /** A fresh cookie-keeping client. */
  client(options?: { ip?: string }): Client;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Use this data folder (e.g. a stopped board's, to test a restart); it is then left in place by close(). */
  dataDir?: string;
  /** Start time of the movable clock (Unix seconds), for what the server does at start-up; default now. */
  now?: number;
  /** Link-preview knobs for createApp (a short fetch timeout, injected DNS). */
  preview?: AppOptions['preview'];
  /** Web Push sender knobs for createApp (a short poll). */
  push?: AppOptions['push'];
  /** The follower fan-out's knobs for createApp (a gate between batches, small batches). */
  threadReplies?: AppOptions['threadReplies'];
  /** Slow-client timeouts for createApp (short ones keep the resilience tests fast). */
  timeouts?: AppOptions['timeouts'];
  /** Report-notification knobs for createApp (a short timeout and back-off). */
  notify?: AppOptions['notify'];
  /** The account-removal job's knobs for createApp (paused, short slices). */
  accountRemoval?: AppOptions['accountRemoval'];
  /** The search backfill's knobs for createApp (paused, small batches). */
  searchBackfill?: AppOptions['searchBackfill'];
  /** The Tor exit list's knobs for createApp (a recheck on every lookup). */
  tor?: AppOptions['tor'];
  /** The visitor count's knobs for createApp (a lower daily cap). */
  impressions?: AppOptions['impressions'];
  /**
   * The search threads' knobs for createApp (jobs held until released). A refused search answers
   * at once unless the test gives its own `holdRefusal`: the second it waits is what almost no
   * test is about (test/api/search-refusals.test.ts is).
   */
  searchThreads?: AppOptions['searchThreads'];
  /**
   * Password hashing for createApp: by default quickHashes (real scrypt at a sixteenth of the
   * cost); fullCostHashes for a test of the stored hash's cost, or a wrapper that holds requests
   * (test/helpers/password-gate.ts).
   */
  passwords?: AppOptions['passwords'];
  /** The machine's slots wrapped (test/helpers/slot-gate.ts). */
  slots?: AppOptions['slots'];
  /** Image scaling for createApp: sharp, or a wrapper that holds requests (test/helpers/image-gate.ts). */
  images?: AppOptions['images'];
  /** Passkey checks for createApp: the library's, or a wrapper that holds requests (test/helpers/passkey-gate.ts). */
  webauthn?: AppOptions['webauthn'];
  /** Listen on this port instead of any free one (a browser test whose BOARD_ORIGIN must name it). */
  port?: number;
  /** Free bytes of the data volume as the board sees them; default a roomy 1 TiB, so no test depends on this machine's disk. */
  freeBytes?: AppOptions['freeBytes'];
  /** Federation's knobs for createApp (short polls and timeouts, the received-activities hook). */
  federation?: AppOptions['federation'];
}

/** A few real rows of the bundled IP-to-ASN data set: test servers need not load all 33 MB. */
export const asnFixtureDir = fileURLToPath(new URL('../fixtures/asn', import.meta.url));

/** The settings of every test board: port 0, scrypt's lowest setting, no previews, the small ASN fixture. */
export function testBoardEnv(dataDir: string): Record<string, string> {
  return { BOARD_DATA: dataDir, PORT: '0', BOARD_SCRYPT_LOGN: '14', BOARD_PREVIEW: '0', BOARD_ASN_DB: asnFixtureDir };
}

/**
 * Starts the real server on port 0 with a temporary BOARD_DATA, the settings of testBoardEnv and a
 * movable clock. `env` adds BOARD_* variables, exactly as a sysadmin would set them.
 */
export async function startBoard(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestBoard> {
  const dataDir = options.dataDir ?? emptyFolder('board-test-');
  const config = loadConfig({ ...testBoardEnv(dataDir), ...env });
  prepareDataDir(config);
  const clock = movableClock(options.now);
  const logs: string[] = [];
  const app = createApp(config, {
    clock,
    log: (line) => logs.push(line),
    preview: options.preview,
    push: options.push,
    threadReplies: options.threadReplies,
    timeouts: options.timeouts,
    notify: options.notify,
    accountRemoval: options.accountRemoval,
    searchBackfill: options.searchBackfill,
    tor: options.tor,
    impressions: options.impressions,
    searchThreads: { holdRefusal: async () => {}, ...options.searchThreads },
    passwords: options.passwords ?? quickHashes,
    slots: options.slots,
    images: options.images,
    webauthn: options.webauthn,
    freeBytes: options.freeBytes ?? (() => 2 ** 40),
    federation: options.federation,
  });
  await new Promise<void>((resolve) => app.server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const metrics = app.metricsServer && config.metrics;
  const metricsUrl = metrics
    ? `http://${metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host}:${await listenOnLoopback(app.metricsServer!, metrics.port, metrics.host)}`
    : undefined;
  return {
    url,
    metricsUrl,
    app,
    config,
    clock,
    logs,
    client: (options = {}) => new Client(url, options.ip),
    async close() {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A board behind a trusted proxy (BOARD_TRUST_PROXY=1): every visitor() gets its own address,
 * so the per-IP limits of one test never spill into another.
 */
export function startProxiedBoard(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestBoard> {
  return startBoard({ BOARD_TRUST_PROXY: '1', ...env }, options);
}
