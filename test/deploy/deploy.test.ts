import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../lib/config.ts';
import { emptyFolder } from '../helpers.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/** deploy/: the files a sysadmin installs, checked with the tools that will read them where those are installed. */
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const deploy = (name: string) => join(projectRoot, 'deploy', name);
const read = (name: string) => readFileSync(deploy(name), 'utf8');
const units = [
  'board.service',
  'board-backup.service',
  'board-backup.timer',
  'board-tor-refresh.service',
  'board-tor-refresh.timer',
  'board-litestream.service',
  'board-media-sync.service',
];
const services = units.filter((u) => u.endsWith('.service'));

/** Where a tool is installed, or undefined. */
function tool(name: string): string | undefined {
  for (const place of [`/usr/bin/${name}`, `/usr/sbin/${name}`, `/bin/${name}`]) if (existsSync(place)) return place;
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  return found || undefined;
}
const skipWithout = (name: string, debianPackage: string) =>
  tool(name) ? false : `${name} is not installed here (Debian package ${debianPackage}): not checked`;

test('systemd-analyze verify finds nothing to say about any unit (code at this checkout instead of /opt/board)', {
  skip: skipWithout('systemd-analyze', 'systemd'),
  timeout: hangBoundMs,
}, () => {
  const folder = emptyFolder('board-units-');
  for (const unit of units) {
    // Installed as docs/OPERATIONS.md says, /opt/board is the checkout; here the checkout is this folder.
    writeFileSync(
      join(folder, unit),
      read(unit)
        .replaceAll('/opt/board', projectRoot.replace(/\/$/, ''))
        .replaceAll('/usr/local/bin/node', process.execPath)
        .replaceAll('/usr/bin/litestream', '/bin/true'), // Litestream's .deb is not installed here
    );
  }
  const run = spawnSync(tool('systemd-analyze')!, ['verify', ...units.map((u) => join(folder, u))], {
    encoding: 'utf8',
  });
  const about = (run.stdout + run.stderr)
    .split('\n')
    .filter((line) => line.includes(folder) || units.some((u) => line.includes(u)));
  assert.deepEqual(about, [], 'no warning or error about our units');
  assert.equal(run.status, 0, run.stderr);
});

test('every service runs as the dedicated user in the sandbox docs/OPERATIONS.md promises', () => {
  for (const unit of services) {
    const text = read(unit);
    for (const line of [
      'User=board',
      'Group=board',
      'EnvironmentFile=/etc/board/board.env',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
      'ProtectHome=yes',
      'CapabilityBoundingSet=',
    ]) {
      assert.ok(text.split('\n').includes(line), `${unit}: ${line}`);
    }
    assert.match(text, /^ReadWritePaths=\/var\/lib\/board\b/m, `${unit}: writes only the data folder (and backups)`);
  }
  const server = read('board.service');
  assert.match(server, /^Restart=on-failure$/m);
  assert.match(server, /^ExecStart=\/usr\/local\/bin\/node --import tsx server\.ts$/m);
  assert.match(read('board-backup.service'), /backup --quiet --force --with-media/);
  assert.match(read('board-tor-refresh.service'), /^ExecStart=\/opt\/board\/bin\/board-admin tor-refresh/m);
  assert.match(read('board-backup.timer'), /^Persistent=true$/m);
});

test('deploy/board.env holds valid settings, and both proxies accept a body of BOARD_MAX_UPLOAD', () => {
  const env = Object.fromEntries(
    read('board.env')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split('=', 2) as [string, string]),
  );
  const config = loadConfig(env);
  assert.equal(config.trustProxy, true);
  assert.equal(config.host, '127.0.0.1', 'only the proxy reaches the server');
  assert.match(config.origin, /^https:/);
  const nginxLimit = /client_max_body_size (\d+)m;/.exec(read('nginx.conf'))!;
  assert.ok(Number(nginxLimit[1]) * 1024 * 1024 >= config.maxUpload);
  const caddyLimit = /max_size (\d+)MiB/.exec(read('Caddyfile'))!;
  assert.ok(Number(caddyLimit[1]) * 1024 * 1024 >= config.maxUpload);
  for (const proxy of ['nginx.conf', 'Caddyfile']) {
    assert.match(read(proxy), /Strict-Transport-Security "max-age=\d+/, `${proxy}: HSTS`);
    assert.match(read(proxy), /127\.0\.0\.1:8080/, `${proxy}: proxies to the board`);
  }
  assert.match(read('nginx.conf'), /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  assert.match(read('nginx.conf'), /^\s*access_log off;/m, 'no client addresses in logs');
});

/**
 * The lines of docs/OPERATIONS.md's guide (step 7, nginx) that make what deploy/nginx.conf's cache
 * needs, as an operator copies them.
 */
function guideCacheSteps(): string[] {
  const guide = readFileSync(join(projectRoot, 'docs', 'OPERATIONS.md'), 'utf8');
  const block = /```sh\n(\s*apt install -y nginx [\s\S]*?)```/.exec(guide)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes('/var/cache/nginx'));
}

const isRoot = process.getuid?.() === 0;

test("nginx -t accepts deploy/nginx.conf as installed, its cache in /var/cache/nginx/board, after the guide's steps on a Debian without that folder", {
  skip:
    skipWithout('nginx', 'nginx') ||
    skipWithout('openssl', 'openssl') ||
    skipWithout('unshare', 'util-linux') ||
    (!isRoot && 'not root: the test needs a mount namespace of its own (unshare --mount) to leave /var/cache as it is'),
  timeout: hangBoundMs,
}, () => {
  const folder = emptyFolder('board-nginx-');
  execFileSync(
    tool('openssl')!,
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=board.example.org',
      '-keyout',
      join(folder, 'key.pem'),
      '-out',
      join(folder, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  // certbot's certificate and the error log move into the test's folder; the cache path stays as it is.
  const site = read('nginx.conf')
    .replace('/etc/letsencrypt/live/board.example.org/fullchain.pem', join(folder, 'cert.pem'))
    .replace('/etc/letsencrypt/live/board.example.org/privkey.pem', join(folder, 'key.pem'))
    .replace('/var/log/nginx/board-error.log', join(folder, 'error.log'));
  assert.match(site, /^proxy_cache_path \/var\/cache\/nginx\/board /m);
  writeFileSync(join(folder, 'site.conf'), site);
  writeFileSync(
    join(folder, 'nginx.conf'),
    `pid ${folder}/nginx.pid;\nerror_log ${folder}/main-error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${folder}/site.conf;\n}\n`,
  );
  const steps = guideCacheSteps();
  assert.notDeepEqual(steps, [], "the guide's nginx step makes the cache's folder");
  const nginxTest = `${tool('nginx')} -t -p ${folder} -c ${folder}/nginx.conf`;
  // In a mount namespace of its own, an empty /var/cache as on a fresh Debian: this machine's stays untouched.
  const inFreshDebian = (script: string) =>
    spawnSync(
      tool('unshare')!,
      ['--mount', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs tmpfs /var/cache && ${script}`],
      { encoding: 'utf8' },
    );
  const without = inFreshDebian(`test ! -e /var/cache/nginx && ${nginxTest}`);
  assert.notEqual(without.status, 0, 'without the steps nginx -t fails, as on Debian');
  assert.match(without.stderr, /mkdir\(\) "\/var\/cache\/nginx\/board" failed/);
  const run = inFreshDebian(`set -e\n${steps.join('\n')}\n${nginxTest}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /test is successful/);
});

test('caddy validate accepts deploy/Caddyfile', { skip: skipWithout('caddy', 'caddy'), timeout: hangBoundMs }, () => {
  const run = spawnSync(tool('caddy')!, ['validate', '--config', deploy('Caddyfile'), '--adapter', 'caddyfile'], {
    encoding: 'utf8',
    env: {
      ...process.env,
      HOME: emptyFolder('board-caddy-'),
      XDG_DATA_HOME: emptyFolder('board-caddy-'),
      XDG_CONFIG_HOME: emptyFolder('board-caddy-'),
    },
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout + run.stderr, /Valid configuration/);
});

test("deploy/board-admin is a valid shell script that runs the checkout's board-admin with /etc/board/board.env", () => {
  assert.equal(spawnSync('sh', ['-n', deploy('board-admin')]).status, 0);
  const text = read('board-admin');
  assert.match(text, /^\. \/etc\/board\/board\.env$/m);
  assert.match(text, /^exec \/opt\/board\/bin\/board-admin "\$@"$/m);
});

test('the replica files: the scripts parse, and each REPLICA_* setting they need is in deploy/replica.env', () => {
  const settings = new Set(
    read('replica.env')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split('=', 1)[0]!),
  );
  for (const script of ['board-media-sync', 'board-replica-restore']) {
    assert.equal(spawnSync('sh', ['-n', deploy(script)]).status, 0, `${script} parses`);
    const needed = [...read(script).matchAll(/\$\{(REPLICA_[A-Z_]+):\?\}/g)].map((m) => m[1]!);
    assert.ok(needed.length >= 6, script);
    for (const name of needed) assert.ok(settings.has(name), `${script} needs ${name}`);
  }
  assert.match(read('litestream.yml'), /^\s+- type: sftp$/m);
  for (const unit of ['board-litestream.service', 'board-media-sync.service'])
    assert.ok(read(unit).split('\n').includes('EnvironmentFile=/etc/board/replica.env'), unit);
  assert.match(read('board.env'), /^#BOARD_LITESTREAM=1$/m, 'board.env shows the setting Litestream needs');
});
