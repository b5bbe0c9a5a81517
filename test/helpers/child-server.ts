import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { asnFixtureDir } from './board.ts';
import { childEnv } from './child-env.ts';
import { hangBoundMs } from './hang-bound.ts';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  /** The last lines the server printed (stdout and stderr), for failure messages. */
  output(): string;
}

/**
 * Starts the real server (`node --import tsx server.ts`) as a child process on a free port:
 * PORT=0, and the port is read from its "listening on" line. Cheap scrypt, no previews, the small
 * ASN fixture (the bundled data set costs each start a second of CPU, as in startBoard),
 * BOARD_TRUST_PROXY=1 so every test client can have its own X-Forwarded-For address, and the abuse
 * limits off (BOARD_LIMITS=0: a write load writes faster than a person); `env` may turn them on.
 */
export function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: projectRoot,
    env: childEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      BOARD_DATA: dataDir,
      BOARD_TRUST_PROXY: '1',
      BOARD_SCRYPT_LOGN: '14',
      BOARD_PREVIEW: '0',
      BOARD_ASN_DB: asnFixtureDir,
      BOARD_LIMITS: '0',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${hangBoundMs / 1000} s:\n${lines.join('\n')}`));
    }, hangBoundMs);
    let found = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      const match = found ? null : /board listening on (http:\/\/[\d.]+:\d+)/.exec(chunk.toString('utf8'));
      if (!match) return;
      found = true;
      clearTimeout(timer);
      resolve({ url: match[1]!, process: child, exited, output: () => lines.join('\n') });
    });
    child.stderr!.on('data', keep);
    void exited.then((code) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`the server exited (${code}) before listening:\n${lines.join('\n')}`));
    });
  });
}

/** Runs bin/board-admin with BOARD_DATA as a child process. */
export function runAdminIn(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(fileURLToPath(new URL('../../bin/board-admin', import.meta.url)), args, {
    cwd: projectRoot,
    env: childEnv({ BOARD_DATA: dataDir, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), hangBoundMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
