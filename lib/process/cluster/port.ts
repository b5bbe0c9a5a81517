import { createServer } from 'node:net';

/**
 * The port the workers share. Each worker listens on it with its own socket and `reusePort`
 * (Linux SO_REUSEPORT: the kernel spreads new connections over the workers' sockets, so no
 * connection passes through the primary). The primary first listens on it once without the
 * option and lets go: a port that anything holds fails here with EADDRINUSE, the one-line error
 * of a single process, where the workers' own sockets would join another board of the same user
 * that listens with reusePort and share its connections; and PORT=0 becomes one free port, the
 * same for every worker and for each one that replaces a worker that died.
 */
export function claimWorkersPort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => {
      const address = probe.address();
      const claimed = typeof address === 'object' && address ? address.port : port;
      probe.close(() => resolve(claimed));
    });
  });
}
