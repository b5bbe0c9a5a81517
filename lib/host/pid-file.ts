import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';

/**
 * `$BOARD_DATA/server.pid` names the server process using the data folder, so that
 * `board-admin restore` can refuse to replace a database under a running server and a second
 * server does not start on the same folder.
 */
export function pidFilePath(dataDir: string): string {
  return join(dataDir, 'server.pid');
}

export function runningServerPid(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFilePath(dataDir), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  return processAlive(pid) ? pid : undefined;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function claimPidFile(dataDir: string): () => void {
  const other = runningServerPid(dataDir);
  if (other) throw new ConfigError(`BOARD_DATA: another server (pid ${other}) uses ${dataDir}`);
  writeFileSync(pidFilePath(dataDir), `${process.pid}\n`);
  return () => {
    if (runningServerPid(dataDir) === undefined) rmSync(pidFilePath(dataDir), { force: true });
  };
}
