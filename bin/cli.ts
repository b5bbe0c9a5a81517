import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../lib/config.ts';
import { openDb, type Db } from '../lib/db/db.ts';
import { systemClock } from '../lib/clock.ts';
import { recordFederationEvents } from '../lib/federation/outbox.ts';
import { checkSettingNames } from '../lib/process/setting-warnings.ts';
import { startupFailure } from '../lib/process/startup-errors.ts';
import { unexpectedErrorLine } from './error-line.ts';

/**
 * The admin CLI's plumbing: one table of commands (bin/board-admin.ts), and for every command
 * the same help, argument errors, board check and error lines. Exit codes: 0 done, 1 the command
 * failed, 2 an unknown command or wrong arguments.
 */
/** A command as the table lists it (bin/commands/index.ts): found and described without loading its code. */
export interface ListedCommand {
  name: string;
  /** The arguments after the name, as the usage line shows them: `<username>`, `[--all]`. */
  usage: string;
  /** One line for the command list. */
  summary: string;
  load(): Promise<CommandBody>;
}

/** What a command's own file holds: its details, arguments and code. */
export interface CommandBody {
  /** The details `board-admin help <name>` prints below the usage line. */
  help: string;
  /** Works on the board in BOARD_DATA: refused when there is no board.db there, and names it on stderr. */
  needsBoard: boolean;
  /** Options besides --help and --quiet, as node:util parseArgs takes them. */
  options?: Record<string, { type: 'boolean' | 'string'; short?: string }>;
  /** How many plain arguments it takes, at least and at most. */
  args: readonly [min: number, max: number];
  /** Checks the arguments' form before anything is opened; throws UsageError. */
  validate?(args: string[], options: CommandContext['options']): void;
  run(ctx: CommandContext): number | Promise<number>;
}

export type Command = Omit<ListedCommand, 'load'> & CommandBody;

/** A listed command with its code loaded. */
export async function loadCommand(listed: ListedCommand): Promise<Command> {
  return { name: listed.name, usage: listed.usage, summary: listed.summary, ...(await listed.load()) };
}

export interface CommandContext {
  config: Config;
  args: string[];
  options: Record<string, string | boolean | undefined>;
  quiet: boolean;
  /** The board's database helper (needsBoard commands), opened on first use and closed at the end. */
  db(): Db;
  /** A result line on stdout. */
  print(line: string): void;
  /** A note or progress line on stderr, left out with --quiet. */
  note(line: string): void;
  /** A warning on stderr, always shown. */
  warn(line: string): void;
}

/** A wrong argument: a short error, a hint line, exit 2. */
export class UsageError extends Error {}

/** An expected failure (no such user, a bad backup file): one line, exit 1. */
export class CommandFailure extends Error {}

const globalOptions = { help: { type: 'boolean', short: 'h' }, quiet: { type: 'boolean', short: 'q' } } as const;

/** Where the CLI writes: the process's stdout and stderr, or a test's buffers. */
export interface CliOutput {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/** Runs one command line; returns the exit code. */
export async function runCli(
  commands: readonly ListedCommand[],
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  io: CliOutput = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const at = argv.findIndex((arg) => !arg.startsWith('-'));
  const name = at < 0 ? undefined : argv[at]!;
  const rest = at < 0 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (name === 'help') return helpCommand(commands, rest, io);
  const listed = commands.find((c) => c.name === name);
  if (!listed) {
    if (!name && rest.some((arg) => arg === '-h' || arg === '--help')) return printHelp(commands, io);
    return usageError(io, name ? `unknown command "${name}"` : 'no command given', 'see: board-admin help');
  }
  const command = await loadCommand(listed);
  // biome-ignore lint/suspicious/noImplicitAnyLet: typed by its assignment below (parseArgs infers the options' types)
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...globalOptions, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    return argumentError(io, command, parseFailure(err));
  }
  if (parsed.values.help) return printCommandHelp(command, io);
  const [min, max] = command.args;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const missing = command.usage.match(/<[^>]+>/g)?.[parsed.positionals.length] ?? 'an argument';
    return argumentError(
      io,
      command,
      parsed.positionals.length < min ? `missing ${missing}` : `unexpected argument "${parsed.positionals[max]}"`,
    );
  }
  try {
    command.validate?.(parsed.positionals, parsed.values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return argumentError(io, command, err.message);
  }
  return execute(command, parsed.positionals, parsed.values, env, io);
}

async function execute(
  command: Command,
  args: string[],
  options: CommandContext['options'],
  env: Record<string, string | undefined>,
  io: CliOutput,
): Promise<number> {
  const quiet = options.quiet === true;
  let db: Db | undefined;
  try {
    checkSettingNames(env);
    const config = loadConfig(env);
    // Never create a board by accident (a run from the wrong folder made an empty ./data).
    if (command.needsBoard && !existsSync(config.dbPath)) throw new CommandFailure(noBoard(command, config, env));
    if (command.needsBoard && !quiet) io.err.write(`board-admin: database ${config.dbPath}\n`);
    const ctx: CommandContext = {
      config,
      args,
      options,
      quiet,
      db: () => {
        if (db) return db;
        db = openDb(config.dbPath, {
          mustExist: true,
          litestream: config.litestream,
          log: (line) => io.err.write(`board-admin: ${line}\n`), // a migration run by a command says so too
        });
        // A removal or ban at the command line reaches other servers like a moderator's: the server's job sends it.
        if (config.federation !== 'off') recordFederationEvents(db, systemClock);
        return db;
      },
      print: (line) => io.out.write(`${line}\n`),
      note: (line) => quiet || io.err.write(`${line}\n`),
      warn: (line) => io.err.write(`${line}\n`),
    };
    return await command.run(ctx);
  } catch (err) {
    io.err.write(`board-admin: ${failureLine(command, err)}\n`);
    return 1;
  } finally {
    await db?.close();
  }
}

/** One line for every failure: what an operator can cause says what is wrong; a programming error where it happened. */
function failureLine(command: Command, err: unknown): string {
  const setting = startupFailure(err);
  if (setting) return setting;
  const bug =
    err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || !(err instanceof Error);
  return `${command.name}: ${bug ? unexpectedErrorLine(err) : err.message}`;
}

function noBoard(command: Command, config: Config, env: Record<string, string | undefined>): string {
  const why = env.BOARD_DATA?.trim() ? `BOARD_DATA=${env.BOARD_DATA.trim()}` : 'BOARD_DATA is not set, so ./data here';
  return `no board in ${config.dataDir} (${why}): no board.db there; name the board's folder, e.g. BOARD_DATA=/var/lib/board board-admin ${command.name}${command.usage ? ' ...' : ''}`;
}

function parseFailure(err: unknown): string {
  const { code, message } = err as { code?: string; message: string };
  const option = /'(-[^']*)'/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `bad value for ${option.split(' ')[0] ?? option}`;
  return message.split('\n')[0]!;
}

/** A wrong argument: the reason with the usage line, then where the details are; never the whole usage. */
function argumentError(io: CliOutput, command: Command, reason: string): number {
  return usageError(
    io,
    `${command.name}: ${reason} (usage: board-admin ${command.name} ${command.usage})`.replace(' )', ')'),
    `see: board-admin help ${command.name}`,
  );
}

function usageError(io: CliOutput, line: string, hint: string): number {
  io.err.write(`board-admin: ${line}\n${hint}\n`);
  return 2;
}

async function helpCommand(commands: readonly ListedCommand[], args: string[], io: CliOutput): Promise<number> {
  const names = args.filter((arg) => !arg.startsWith('-'));
  if (names.length === 0) return printHelp(commands, io);
  const command = commands.find((c) => c.name === names[0]);
  if (names.length > 1)
    return usageError(
      io,
      `help: unexpected argument "${names[1]}" (usage: board-admin help [command])`,
      'see: board-admin help',
    );
  if (!command) return usageError(io, `help: unknown command "${names[0]}"`, 'see: board-admin help');
  return printCommandHelp(await loadCommand(command), io);
}

/**
 * The list of commands with their arguments and summaries, in the table's order and help last:
 * what `board-admin help` prints and docs/OPERATIONS.md "Admin CLI" shows (a test holds the two equal).
 */
export function commandList(commands: readonly ListedCommand[]): { call: string; summary: string }[] {
  return [
    ...commands.map((c) => ({ call: `${c.name} ${c.usage}`.trim(), summary: c.summary })),
    { call: 'help [command]', summary: "list the commands, or one command's usage and details (also: COMMAND --help)" },
  ];
}

function printHelp(commands: readonly ListedCommand[], io: CliOutput): number {
  const list = commandList(commands);
  // The column fits the usual usage lines; a longer one (ban's) pushes only its own summary right.
  const width = Math.min(Math.max(...list.map((c) => c.call.length)), 38);
  io.out.write(
    [
      "board-admin: the board's command line (uses the server's BOARD_* settings)",
      '',
      'usage: board-admin <command> [arguments] [--quiet]',
      '',
      ...list.map((c) => `  ${c.call.padEnd(width)}  ${c.summary}`),
      '',
      'Commands that work on the board need its board.db in BOARD_DATA (default ./data) and never',
      'create one; they name the database on stderr unless --quiet (-q) is given.',
      'Exit codes: 0 done, 1 the command failed, 2 unknown command or wrong arguments.',
      '',
    ].join('\n'),
  );
  return 0;
}

function printCommandHelp(command: Command, io: CliOutput): number {
  io.out.write(`${`usage: board-admin ${command.name} ${command.usage}`.trim()}\n\n${command.help.trim()}\n`);
  return 0;
}
