import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestBoard } from './board.ts';
import { childEnv } from './child-env.ts';
import { hangBoundMs } from './hang-bound.ts';

export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A size as the admin commands print it (lib/text/size-text.ts), for a RegExp's source: `416 KiB`, `2.3 MiB`. */
export const sizeInText = String.raw`\d+(?:\.\d)? (?:B|KiB|MiB|GiB)`;

const adminBin = fileURLToPath(new URL('../../bin/board-admin', import.meta.url));

/** Runs bin/board-admin as a real process against the board's data folder and origin. */
export function runAdmin(board: TestBoard, args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return runAdminWith(args, { BOARD_DATA: board.config.dataDir, BOARD_ORIGIN: board.config.origin, ...env });
}

/** The same command as runAdmin, run in this process (runAdminInProcess): no second of start-up. */
export function runAdminHere(
  board: TestBoard,
  args: string[],
  env: Record<string, string> = {},
): Promise<AdminRun & { code: number }> {
  return runAdminInProcess(args, { BOARD_DATA: board.config.dataDir, BOARD_ORIGIN: board.config.origin, ...env });
}

/** Runs bin/board-admin with only these BOARD_* variables (none: as in a fresh shell), in `cwd` if given. */
export function runAdminWith(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    execFile(adminBin, args, { env: childEnv(env), cwd, timeout: hangBoundMs }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

/**
 * Creates a reset link with the admin CLI's own command, run in this process (a process of its
 * own costs a second of start-up; auth.test.ts runs the real one), and returns its token
 * (the part after `#`).
 */
export async function resetToken(board: TestBoard, username: string): Promise<string> {
  const run = await runAdminHere(board, ['reset-link', username]);
  if (run.code !== 0) throw new Error(`reset-link ${username}: exit ${run.code} ${run.stderr}`);
  const match = /^(\S+)\/reset#([A-Za-z0-9_-]+)\n$/.exec(run.stdout);
  if (!match || match[1] !== board.config.origin) throw new Error(`reset-link printed ${JSON.stringify(run.stdout)}`);
  return match[2]!;
}

/**
 * Runs bin/board-admin's runCli in this process with only these variables (none: as in a fresh
 * shell): for the many cases that need no real process (help, argument errors, a folder without a
 * board). `cwd`: the working folder for the run (./data is looked for there), restored after it;
 * only while no other test of the file runs, as the working folder is the whole process's.
 */
export async function runAdminInProcess(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<AdminRun & { code: number }> {
  // Loaded on first use: most tests that import the helpers never need the command table.
  const [{ runCli }, { commands }] = await Promise.all([
    import('../../bin/cli.ts'),
    import('../../bin/commands/index.ts'),
  ]);
  let stdout = '';
  let stderr = '';
  const before = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await runCli(commands, args, env, {
      out: { write: (text: string) => (stdout += text) },
      err: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
  }
}
