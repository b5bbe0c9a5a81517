import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { SchemaTooNewError } from '../../lib/db/schema.ts';
import { metricsListenFailure, startupFailure } from '../../lib/process/startup-errors.ts';

const config = loadConfig({ PORT: '80', HOST: 'board.invalid', BOARD_DATA: '/srv/board/data' });
const errno = (code: string) => Object.assign(new Error(`listen ${code}: made up`), { code });

test('each start-up failure an operator can cause is one line that names the setting to change', () => {
  const lines = {
    EADDRINUSE:
      'PORT: 80 on board.invalid is already in use (is the board already running?); stop that process or choose another PORT',
    EACCES:
      'PORT: no permission to listen on 80 (ports below 1024 need root); use a port such as 8080 behind nginx or Caddy',
    ENOTFOUND: 'HOST: "board.invalid" does not resolve to an address; use an IP address such as 127.0.0.1',
    EAI_AGAIN: 'HOST: "board.invalid" does not resolve to an address; use an IP address such as 127.0.0.1',
    EADDRNOTAVAIL: 'HOST: board.invalid is not an address of this machine; use 127.0.0.1 behind a proxy',
  };
  for (const [code, line] of Object.entries(lines)) assert.equal(startupFailure(errno(code), config), line, code);
  assert.equal(startupFailure(new ConfigError('PORT: "x" is not a whole number')), 'PORT: "x" is not a whole number');
  assert.equal(
    startupFailure(new SchemaTooNewError('database schema 99 is newer than this code (9)'), config),
    '/srv/board/data/board.db: database schema 99 is newer than this code (9); run the newer code or restore an older backup',
  );
});

test('anything else is not dressed up as an operator error: it keeps its stack', () => {
  assert.equal(startupFailure(new TypeError('undefined is not a function'), config), undefined);
  assert.equal(startupFailure(errno('EPIPE'), config), undefined);
  assert.equal(startupFailure(errno('EADDRINUSE')), undefined, 'a listen error needs the config to name the port');
});

test("the metrics listener's failures name BOARD_METRICS_PORT or BOARD_METRICS_HOST", () => {
  const metrics = { port: 80, host: '::1' };
  assert.equal(
    metricsListenFailure(errno('EADDRINUSE'), metrics),
    "BOARD_METRICS_PORT: 80 on ::1 is already in use; choose another BOARD_METRICS_PORT (not the board's PORT)",
  );
  assert.equal(
    metricsListenFailure(errno('EACCES'), metrics),
    'BOARD_METRICS_PORT: no permission to listen on 80 (ports below 1024 need root); use a port such as 9464',
  );
  assert.equal(
    metricsListenFailure(errno('EADDRNOTAVAIL'), metrics),
    'BOARD_METRICS_HOST: ::1 is not an address of this machine; use 127.0.0.1',
  );
  assert.equal(metricsListenFailure(errno('EPIPE'), metrics), undefined);
});
