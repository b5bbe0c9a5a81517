import cluster from 'node:cluster';
import type { App } from './lib/app.ts';
import { workerIndexVariable } from './lib/process/cluster/worker-index.ts';
import { checkSettingNames, settingWarnings } from './lib/process/setting-warnings.ts';
import { loadConfig, type Config } from './lib/config.ts';
import { nodeTooOld } from './lib/process/node-version.ts';
import { claimPidFile } from './lib/host/pid-file.ts';
import { startupFailure } from './lib/process/startup-errors.ts';
import { prepareDataDir } from './lib/host/folders.ts';

/**
 * Start-up only: config → app (database inside) → listen → graceful shutdown. With BOARD_WORKERS > 1
 * this process becomes the cluster's primary (lib/process/cluster/primary.ts) and forks the workers, which
 * run this file again and take the worker's path (lib/process/cluster/worker.ts). The board's modules
 * load once the settings are read and the data folder is claimed: a wrong setting ends at once.
 */
async function main(): Promise<void> {
  if (cluster.isWorker) return (await import('./lib/process/cluster/worker.ts')).runWorker();
  const tooOld = nodeTooOld();
  if (tooOld) return fail(new Error(tooOld), undefined, tooOld);
  let config: Config | undefined;
  let releasePidFile: (() => void) | undefined;
  let app: App;
  try {
    checkSettingNames(process.env, [workerIndexVariable]);
    config = loadConfig(process.env);
    for (const line of settingWarnings(config)) console.error(`board: warning: ${line}`);
    prepareDataDir(config);
    releasePidFile = claimPidFile(config.dataDir);
    if (config.workers > 1)
      return (await import('./lib/process/cluster/primary.ts')).runPrimary(config, releasePidFile, fail);
    app = (await import('./lib/app.ts')).createApp(config);
  } catch (err) {
    releasePidFile?.();
    return fail(err, config);
  }
  const ready = config;
  const release = releasePidFile;

  const { serveApp } = await import('./lib/process/serve.ts');
  const serving = serveApp(app, ready, {
    listening: (port) => console.log(`board listening on http://${ready.host}:${port} (data in ${ready.dataDir})`),
    // A failed listen (port in use, no permission, a HOST that does not resolve) ends in one line.
    failed: (err, line) => {
      release();
      fail(err, ready, line);
    },
  });
  const shutdown = (signal: string) =>
    void serving.shutdown(signal).then(() => {
      release();
      process.exit(0);
    });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** One line on stderr and exit 1 for what an operator can fix (`line` when the caller knows it); anything else keeps its stack. */
function fail(err: unknown, config: Config | undefined, line?: string): never {
  console.error(`board: ${line ?? startupFailure(err, config) ?? (err instanceof Error ? err.stack : String(err))}`);
  process.exit(1);
}

void main();
