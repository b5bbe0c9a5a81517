import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyFolder } from './folders.ts';
import { freePort, tryConnect } from './ports.ts';

export { freePort } from './ports.ts';

/**
 * Debian's nginx running deploy/nginx.conf on loopback (test/deploy/nginx-cache.test.ts,
 * bench/nginx-cache.ts): the site as an operator installs it, with only what a test must change
 * changed: plain HTTP on a free port of 127.0.0.1 instead of TLS on 443, the board's port, and the
 * cache, logs and temporary files in a folder of its own. nginx runs in the foreground as our child
 * and is stopped by its pid.
 */

const siteFile = fileURLToPath(new URL('../../deploy/nginx.conf', import.meta.url));

/** nginx's path, or undefined when it is not installed (Debian package nginx). */
export function nginxPath(): string | undefined {
  for (const place of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(place)) return place;
  return spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim() || undefined;
}

/** deploy/nginx.conf's HTTPS site as plain HTTP on 127.0.0.1:port in front of upstreamPort. */
export function loopbackSite(port: number, upstreamPort: number, folder: string): string {
  const text = readFileSync(siteFile, 'utf8');
  // The first server block only sends port 80 to HTTPS.
  const redirect = /^server \{\n {4}listen 80;[\s\S]*?^\}\n/m;
  if (!redirect.test(text)) throw new Error('deploy/nginx.conf: the port 80 block is not where the test expects it');
  return text
    .replace(redirect, '')
    .replace(/^ {4}listen 443 ssl;$/m, `    listen 127.0.0.1:${port};`)
    .replace(/^ {4}listen \[::\]:443 ssl;\n/m, '')
    .replace(/^ {4}ssl_.*\n/gm, '')
    .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`)
    .replace('/var/cache/nginx/board', join(folder, 'cache'))
    .replace('/var/log/nginx/board-error.log', join(folder, 'error.log'));
}

export interface RunningNginx {
  url: string;
  port: number;
  folder: string;
  child: ChildProcess;
  /** Stops nginx by its pid and waits for it to end. */
  stop(): Promise<void>;
}

/** Starts nginx with loopbackSite in front of upstreamPort; resolves once it accepts connections. */
export async function startNginx(upstreamPort: number, port?: number, workers = 1): Promise<RunningNginx> {
  const nginx = nginxPath();
  if (!nginx) throw new Error('nginx is not installed (apt-get install nginx)');
  const folder = emptyFolder('board-nginx-cache-');
  const listen = port ?? (await freePort());
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(folder, temp));
  writeFileSync(join(folder, 'site.conf'), loopbackSite(listen, upstreamPort, folder));
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((temp) => `  ${temp}_temp_path ${join(folder, temp)};`)
    .join('\n');
  // As root, the workers run as root too: they write the cache in our own temporary folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    join(folder, 'nginx.conf'),
    `${user}daemon off;\nworker_processes ${workers};\npid ${folder}/nginx.pid;\nerror_log ${folder}/main-error.log warn;\n` +
      `events {}\nhttp {\n  access_log off;\n${temps}\n  include ${folder}/site.conf;\n}\n`,
  );
  const child = spawn(nginx, ['-p', folder, '-c', join(folder, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await ended;
  };
  // Up to 10 s for nginx to listen (it takes milliseconds): a bound on tries, not an assumed speed.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx ended at start: ${stderr}`);
    if ((await tryConnect(listen)) === 'accepted') break;
    if (attempt === 200) {
      await stop();
      throw new Error(`nginx did not listen on ${listen}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${listen}`, port: listen, folder, child, stop };
}
