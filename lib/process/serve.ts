import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import { listenOnLoopback } from '../metrics/listener.ts';
import { metricsListenFailure } from './startup-errors.ts';

export interface Serving {
  shutdown(signal: string): Promise<void>;
}

/**
 * Puts one app on the network: the board's port, then its metrics listener. Used by the single
 * process and by each cluster worker, which listens with `reusePort` on the port the primary
 * claimed. `failed` gets a failed listen, with its one-line reason when known, after the app has
 * closed.
 */
export function serveApp(
  app: App,
  config: Config,
  hooks: { reusePort?: boolean; listening(port: number): void; failed(err: Error, line?: string): void },
): Serving {
  const failListen = (err: Error, line?: string) => void app.close().finally(() => hooks.failed(err, line));
  app.server.once('error', failListen);
  app.server.listen({ port: config.port, host: config.host, reusePort: hooks.reusePort ?? false }, () => {
    app.server.off('error', failListen);
    const address = app.server.address();
    hooks.listening(typeof address === 'object' && address ? address.port : config.port);
    const { metricsServer } = app;
    if (!metricsServer || !config.metrics) return;
    const metrics = config.metrics;
    listenOnLoopback(metricsServer, metrics.port, metrics.host).then(
      (metricsPort) => console.log(`board: metrics on ${metricsUrl(metrics.host, metricsPort)}`),
      (err: Error) => failListen(err, metricsListenFailure(err, metrics)),
    );
  });

  let stopped: Promise<void> | undefined;
  return {
    shutdown(signal) {
      stopped ??= new Promise<void>((resolve) => {
        console.log(`board: ${signal}, finishing requests in flight`);
        // Stop accepting; idle keep-alive connections are closed so close() can finish.
        app.server.close(() => void app.close().then(resolve));
        app.server.closeIdleConnections();
        setTimeout(() => {
          console.error('board: requests still running after 10 s, closing them');
          app.server.closeAllConnections();
        }, 10_000).unref();
      });
      return stopped;
    },
  };
}

export function metricsUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`;
}
