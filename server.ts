import { createApp, type App } from './lib/app.ts';
import { loadConfig, prepareDataDir, type Config } from './lib/config.ts';
import { claimPidFile } from './lib/pid-file.ts';
import { listenOnLoopback } from './lib/metrics/listener.ts';
import { metricsListenFailure, startupFailure } from './lib/startup-errors.ts';

/** Start-up only: config → app (database inside) → listen → graceful shutdown. */
function main(): void {
  let config: Config | undefined;
  let releasePidFile: (() => void) | undefined;
  let app: App;
  try {
    config = loadConfig(process.env);
    prepareDataDir(config);
    releasePidFile = claimPidFile(config.dataDir);
    app = createApp(config);
  } catch (err) {
    releasePidFile?.();
    return fail(err, config);
  }
  const ready = config;
  const release = releasePidFile;

  // A failed listen (port in use, no permission, a HOST that does not resolve) ends in one line.
  const failListen = (err: Error, line?: string) => void app.close().finally(() => {
    release();
    fail(err, ready, line);
  });
  app.server.once('error', failListen);
  app.server.listen(ready.port, ready.host, () => {
    app.server.off('error', failListen);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : ready.port;
    console.log(`board listening on http://${ready.host}:${port} (data in ${ready.dataDir})`);
    const { metricsServer } = app;
    if (!metricsServer || !ready.metrics) return;
    const metrics = ready.metrics;
    listenOnLoopback(metricsServer, metrics.port, metrics.host).then(
      (metricsPort) => console.log(`board: metrics on http://${metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host}:${metricsPort}/metrics`),
      (err: Error) => failListen(err, metricsListenFailure(err, metrics)),
    );
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`board: ${signal}, finishing requests in flight`);
    // Stop accepting; idle keep-alive connections are closed so close() can finish.
    app.server.close(() => {
      void app.close().then(() => {
        release();
        process.exit(0);
      });
    });
    app.server.closeIdleConnections();
    setTimeout(() => {
      console.error('board: requests still running after 10 s, closing them');
      app.server.closeAllConnections();
    }, 10_000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** One line on stderr and exit 1 for what an operator can fix (`line` when the caller knows it); anything else keeps its stack. */
function fail(err: unknown, config: Config | undefined, line?: string): never {
  console.error(`board: ${line ?? startupFailure(err, config) ?? (err instanceof Error ? err.stack : String(err))}`);
  process.exit(1);
}

main();
