/**
 * Where `make test`'s time goes: runs each test file alone (one at a time, as `node --test` runs
 * it) under /usr/bin/time and prints a Markdown table of the files with the most CPU time, with
 * wall time, exit status and the load average when the file started.
 *
 *   node --import tsx bench/test-times.ts [files...]   (default: every file make test runs)
 *   TOP=40 node --import tsx bench/test-times.ts test/api/*.test.ts
 *
 * CPU time (user + system, children included: servers, board-admin, Chromium) is the figure to
 * compare on a shared machine; wall time grows with the load average printed beside it. Alone, a
 * file also pays for loading the server's modules and starting Chromium, which `make test`'s
 * lanes (.ci/test-lane.ts) pay once per lane: the sum here is more than `make test` spends.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const top = Number(process.env.TOP ?? 25);

interface Timing {
  file: string;
  wall: number;
  cpu: number;
  status: number | null;
  load: number;
}

/** Every *.test.ts below test/, without the recovery drill (make drill runs it). */
function allTestFiles(dir = join(root, 'test')): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return relative(root, path) === 'test/drill' ? [] : allTestFiles(path);
      return name.endsWith('.test.ts') ? [relative(root, path)] : [];
    })
    .sort();
}

function timeFile(file: string, scratch: string): Timing {
  const out = join(scratch, 'time.txt');
  const load = loadavg()[0]!;
  const run = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %U %S', '-o', out, process.execPath, '--import', 'tsx', '--test', '--test-reporter=dot', file],
    { cwd: root, stdio: 'ignore' },
  );
  const [wall, user, system] = readFileSync(out, 'utf8').trim().split(/\s+/).slice(-3).map(Number) as [
    number,
    number,
    number,
  ];
  return { file, wall, cpu: user + system, status: run.status, load };
}

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : allTestFiles();
const scratch = mkdtempSync(join(tmpdir(), 'test-times-'));
const timings: Timing[] = [];
try {
  for (const file of files) {
    const timing = timeFile(file, scratch);
    timings.push(timing);
    process.stderr.write(
      `${timing.cpu.toFixed(1).padStart(6)} s CPU ${timing.wall.toFixed(1).padStart(6)} s  ${file}\n`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const sum = (pick: (t: Timing) => number) => timings.reduce((total, t) => total + pick(t), 0);
console.log(`| file | CPU s | wall s | load at start | exit |`);
console.log(`| --- | ---: | ---: | ---: | ---: |`);
for (const t of [...timings].sort((a, b) => b.cpu - a.cpu).slice(0, top))
  console.log(`| ${t.file} | ${t.cpu.toFixed(1)} | ${t.wall.toFixed(1)} | ${t.load.toFixed(1)} | ${t.status} |`);
console.log(
  `\n${timings.length} files: ${sum((t) => t.cpu).toFixed(0)} s CPU, ${sum((t) => t.wall).toFixed(0)} s wall one at a time; ` +
    `half of it on 2 cores: ${(sum((t) => t.cpu) / 2 / 60).toFixed(1)} min (make test's lanes load the modules once each).`,
);
const failed = timings.filter((t) => t.status !== 0);
if (failed.length > 0) console.log(`failed: ${failed.map((t) => t.file).join(', ')}`);
