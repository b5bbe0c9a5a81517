import { runCli } from './cli.ts';
import { commands } from './commands/index.ts';
import { nodeTooOld } from '../lib/process/node-version.ts';

// board-admin: the sysadmin's command line; bin/commands/index.ts lists the commands.
const tooOld = nodeTooOld();
if (tooOld) {
  console.error(`board-admin: ${tooOld}`);
  process.exit(1);
}
process.exit(await runCli(commands, process.argv.slice(2)));
