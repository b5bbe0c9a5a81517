import { createApp } from './lib/app.ts';
import { ConfigError, loadConfig, prepareDataDir } from './lib/config.ts';
import { claimPidFile } from './lib/pid-file.ts';

/** Start-up only: config → app (database inside) → listen → graceful shutdown. */
function main(): void {
  let config;
  let releasePidFile;
  try {
    config = loadConfig(process.env);
    prepareDataDir(config);
    releasePidFile = claimPidFile(config.dataDir);
  } catch (err) {
    console.error(`board: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }

  const app = createApp(config);
  app.server.listen(config.port, config.host, () => {
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    console.log(`board listening on http://${config.host}:${port} (data in ${config.dataDir})`);
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`board: ${signal}, finishing requests in flight`);
    // Stop accepting; idle keep-alive connections are closed so close() can finish.
    app.server.close(() => {
      void app.close().then(() => {
        releasePidFile();
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

main();
