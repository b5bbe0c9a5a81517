import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Db } from '../db.ts';

/** How a command reaches the board: bin/board-admin's own opener, so every command opens it the same way. */
export type OpenBoard = () => { config: Config; db: Db };

/** A command of board-admin: its arguments in, the exit code out (0 done, 1 failed, 2 wrong arguments). */
export interface AdminCommand {
  /** One line: `ban <username> --reason TEXT [--days N] [--purge]`, the hint after a wrong argument. */
  usage: string;
  run(args: string[], open: OpenBoard): number | Promise<number>;
}

/** Wrong arguments: exit 2 with a short error and the command's usage line. */
export class ArgumentError extends Error {}

interface OptionSpec {
  [name: string]: { type: 'string' | 'boolean' };
}

/**
 * Splits arguments into exactly `positionals` words and the given `--options`; anything else
 * (an unknown option, a missing value, a word too many) is an ArgumentError.
 */
export function commandArgs<O extends OptionSpec>(args: string[], positionals: number, options: O) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new ArgumentError((err as Error).message.split('\n')[0]!);
  }
  if (parsed.positionals.length !== positionals) {
    throw new ArgumentError(positionals === 0 ? 'takes no words, only options' : `needs exactly ${positionals} ${positionals === 1 ? 'word' : 'words'}`);
  }
  return { words: parsed.positionals, options: parsed.values as { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean } };
}

/** A whole number from the command line (a pid, a report id, a page), or an ArgumentError naming it. */
export function wholeNumber(raw: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max) throw new ArgumentError(`${what} must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
  return Number(raw);
}

/** The command of that name in one of the tables (own keys only: `constructor` is no command). */
export function findCommand(name: string | undefined, ...tables: Record<string, AdminCommand>[]): AdminCommand | undefined {
  return name === undefined ? undefined : tables.find((table) => Object.hasOwn(table, name))?.[name];
}

/** Runs a command; a wrong argument prints one error line and the usage line, and exits 2. */
export async function runCommand(name: string, command: AdminCommand, args: string[], open: OpenBoard): Promise<number> {
  try {
    return await command.run(args, open);
  } catch (err) {
    if (!(err instanceof ArgumentError)) throw err;
    console.error(`board-admin: ${name}: ${err.message}`);
    console.error(`usage: board-admin ${command.usage}`);
    return 2;
  }
}

/** Opens the board, runs `use`, and always closes the database again. */
export async function withBoard<T>(open: OpenBoard, use: (board: { config: Config; db: Db }) => T | Promise<T>): Promise<T> {
  const board = open();
  try {
    return await use(board);
  } finally {
    await board.db.close();
  }
}

/** Unix seconds as `2026-11-21 06:30` (UTC), the command line's one time format. */
export function utcMinute(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** Prints an error for a command that failed (exit 1). */
export function failed(message: string): number {
  console.error(`board-admin: ${message}`);
  return 1;
}
