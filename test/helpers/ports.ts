import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';

/**
 * Ports on 127.0.0.1 for tests that must name one before anything listens on it. Ports from the
 * kernel (port 0) are free when asked but may be handed to another process of the run before the
 * test binds them; a test that needs a port nothing will ever answer on takes refusedPort.
 */

/** Ports free now on 127.0.0.1 (the kernel's choice), for origins that must name them before the servers start. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** One port free now on 127.0.0.1 (the kernel's choice, released again). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * A port on 127.0.0.1 that refuses connections and stays so: below the kernel's range for port 0,
 * where no server of the run can be given it (they all ask for port 0), and checked to refuse now.
 * Why not a released port-0 port: another lane's server or Chromium was handed it mid-test once,
 * and the "dead" service answered.
 */
export async function refusedPort(): Promise<number> {
  const firstEphemeral = Number(
    readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0] ?? 32768,
  );
  const tries = 20;
  for (let i = 0; i < tries; i++) {
    const port = firstEphemeral - 1 - Math.floor(Math.random() * 2000);
    if ((await tryConnect(port)) === 'refused') return port;
  }
  throw new Error(`no refusing port found below ${firstEphemeral} in ${tries} tries`);
}

/** What a connection to 127.0.0.1:port meets now: a listener, a refusal, or another error. */
export function tryConnect(port: number): Promise<'accepted' | 'refused' | 'failed'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'failed'));
  });
}
