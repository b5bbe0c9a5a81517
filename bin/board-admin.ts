import { nodeTooOld } from '../lib/process/node-version.ts';
import { unexpectedErrorLine } from './error-line.ts';

// board-admin: the sysadmin's command line; bin/commands/index.ts lists the commands. Every
// failure is one line on stderr and exit 1, a missing package or a bug included: the commands
// are loaded only after these handlers are in place.
function fail(line: string): never {
  console.error(`board-admin: ${line}`);
  process.exit(1);
}
process.on('uncaughtException', (err) => fail(unexpectedErrorLine(err)));
process.on('unhandledRejection', (err) => fail(unexpectedErrorLine(err)));

const tooOld = nodeTooOld();
if (tooOld) fail(tooOld);
try {
  const [{ runCli }, { commands }] = await Promise.all([import('./cli.ts'), import('./commands/index.ts')]);
  process.exit(await runCli(commands, process.argv.slice(2)));
} catch (err) {
  fail(unexpectedErrorLine(err));
}
