import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { createApp } from '../../lib/app.ts';
import { loadConfig } from '../../lib/config.ts';
import { createMachineSlots } from '../../lib/host/machine-slots.ts';
import type { ReportNotice } from '../../lib/outgoing/operator-webhook.ts';
import { asnFixtureDir, emptyFolder } from '../helpers.ts';
import { prepareDataDir } from '../../lib/host/folders.ts';

function boardConfig(dataDir: string) {
  const config = loadConfig({
    BOARD_DATA: dataDir,
    BOARD_PREVIEW: '1',
    BOARD_NOTIFY_URL: 'http://127.0.0.1:9/hook',
    BOARD_ASN_DB: asnFixtureDir,
    BOARD_SCRYPT_LOGN: '14',
  });
  prepareDataDir(config);
  return config;
}

test('one process runs every once-job itself; the statistics sweep stays with its flush', async (t) => {
  const dataDir = emptyFolder('board-jobs-');
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const app = createApp(boardConfig(dataDir), { log: () => {} });
  try {
    assert.ok(
      app.jobs?.housekeeping &&
        app.jobs.accountRemoval &&
        app.jobs.searchBackfill &&
        app.jobs.previews &&
        app.jobs.notifier,
    );
    assert.equal(app.jobs.statisticsSweep, undefined);
    assert.equal(app.services.previews, app.jobs.previews);
    assert.equal(app.services.impressions.sweepsFinishedDays, true);
  } finally {
    await app.close();
  }
});

test('a cluster worker runs no once-job: it forwards wakes and messages to the primary, and leaves the day sweep to it', async (t) => {
  const dataDir = emptyFolder('board-jobs-');
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const forwarded: string[] = [];
  const link = {
    wake: (job: string) => forwarded.push(`wake ${job}`),
    notify: (notice: ReportNotice) => forwarded.push(`notify ${JSON.stringify(notice)}`),
  };
  const app = createApp(boardConfig(dataDir), {
    log: () => {},
    worker: { link, label: '1', slots: createMachineSlots() },
  });
  try {
    assert.equal(app.jobs, undefined);
    app.services.previews!.wake();
    app.services.accountRemoval!.wake();
    app.services.notifier!.send({ pid: 7, openReports: 1 });
    assert.deepEqual(forwarded, ['wake previews', 'wake accountRemoval', 'notify {"pid":7,"openReports":1}']);
    assert.equal(app.services.impressions.sweepsFinishedDays, false);
    assert.equal(app.metricsServer, undefined, 'the primary answers the metrics');
  } finally {
    await app.close();
  }
});
