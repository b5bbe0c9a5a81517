import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { emptyFolder } from '../helpers.ts';
import { freePort, tryConnect } from '../helpers/ports.ts';

/**
 * The replica's machine for the drill: Debian's sshd on 127.0.0.1 with a throw-away host key and
 * user key, its own configuration in a temporary folder, SFTP and rsync for the current user
 * only. The settings it hands out are deploy/replica.env's, so the drill runs the deploy files as
 * they are.
 */
export interface SftpTarget {
  /** REPLICA_* as in deploy/replica.env, pointing at this target. */
  env: Record<string, string>;
  /** The folder the replica lands in (REPLICA_PATH, absolute). */
  folder: string;
  stop(): Promise<void>;
}

const sshd = '/usr/sbin/sshd';

/** Why the drill cannot run here, or undefined. */
export function missingTools(litestream: string | undefined): string | undefined {
  const missing = ['ssh', 'ssh-keygen', 'rsync'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (!existsSync(sshd)) missing.push('sshd');
  if (missing.length)
    return `needs ${missing.join(', ')} (Debian packages openssh-server, rsync; .ci/run installs them)`;
  if (!litestream)
    return 'needs Litestream: run it with `make drill`, which fetches it (bin/fetch-litestream), or set LITESTREAM';
  return undefined;
}

/** Starts sshd as a child process (stopped by its pid in stop()) and waits until it accepts connections. */
export async function startSftpTarget(): Promise<SftpTarget> {
  const home = emptyFolder('board-sftp-');
  const key = join(home, 'replica_key');
  const hostKey = join(home, 'host_key');
  for (const file of [key, hostKey]) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
  writeFileSync(join(home, 'authorized_keys'), readFileSync(`${key}.pub`));
  // As root, sshd wants its privilege-separation folder (Debian's package makes it at boot).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const folder = join(home, 'target', 'board');
  mkdirSync(folder, { recursive: true });

  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const config = join(home, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(home, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(home, 'authorized_keys')}`,
        `AllowUsers ${userInfo().username}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'UsePAM no',
        'StrictModes no', // the temporary folder's modes are not a home's
        'Subsystem sftp internal-sftp',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    const child = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (await accepting(port, exited)) {
      const knownHosts = join(home, 'known_hosts');
      const [type, body] = readFileSync(`${hostKey}.pub`, 'utf8').split(' ');
      writeFileSync(knownHosts, `[127.0.0.1]:${port} ${type} ${body}\n`);
      return {
        env: {
          REPLICA_HOST: '127.0.0.1',
          REPLICA_PORT: String(port),
          REPLICA_USER: userInfo().username,
          REPLICA_PATH: folder,
          REPLICA_KEY: key,
          REPLICA_KNOWN_HOSTS: knownHosts,
        },
        folder,
        stop: () => stopChild(child, exited),
      };
    }
    await stopChild(child, exited);
    if (attempt >= 3) throw new Error(`sshd did not start: ${stderr}`);
  }
}

/** Whether the port accepts a connection within 10 s (false at once when the process exits). */
async function accepting(port: number, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + 10_000;
  while (!gone && Date.now() < deadline) {
    if ((await tryConnect(port)) === 'accepted') return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** SIGTERM by pid, SIGKILL after 5 s. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
