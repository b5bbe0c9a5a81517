import { runCli } from './cli.ts';
import { commands } from './commands/index.ts';

// board-admin: the sysadmin's command line; bin/commands/index.ts lists the commands.
process.exit(await runCli(commands, process.argv.slice(2)));
