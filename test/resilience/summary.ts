import { readFileSync } from 'node:fs';

/**
 * Prints the `make soak` summary from the JSON lines the resilience tests appended to the file
 * named first on the command line (the test runner's exit status second); exits 1 when a test
 * failed, a 500 was seen or an acknowledged write went missing.
 */
const file = process.argv[2];
const totals: Record<string, number> = {};
const text = file ? readFileSync(file, 'utf8') : '';
for (const line of text.split('\n').filter(Boolean)) {
  for (const [key, value] of Object.entries(JSON.parse(line) as Record<string, number>))
    totals[key] = (totals[key] ?? 0) + value;
}
const n = (key: string) => totals[key] ?? 0;
const rows: [string, number][] = [
  ['crash: SIGKILLs', n('kills')],
  ['crash: writes acknowledged before the kills', n('writesAcknowledged')],
  ['crash: writes found after the crashes', n('writesFound')],
  ['backup: writes acknowledged before a backup', n('backupWritesAcknowledged')],
  ['backup: of those, found in the backup', n('backupWritesFound')],
  ['backup --with-media: served after restore', n('restoredServed')],
  ['fuzz cases sent', n('fuzzCases')],
  ['votes cast under load', n('votesCast')],
  ['500s seen (must be 0)', n('serverErrors')],
];
console.log('\nsoak summary');
for (const [label, value] of rows) console.log(`  ${label.padEnd(46)} ${value}`);
const lost = n('writesAcknowledged') - n('writesFound') + n('backupWritesAcknowledged') - n('backupWritesFound');
const ok = text.length > 0 && n('serverErrors') === 0 && lost === 0;
const testsPassed = process.argv[3] === '0';
console.log(
  ok
    ? '  counts: ok'
    : `  counts: FAILED (${text.length ? `${n('serverErrors')} 500s, ${lost} acknowledged writes missing` : 'no test reported'})`,
);
console.log(`  tests: ${testsPassed ? 'all passed' : 'FAILED (see above)'}`);
process.exit(ok && testsPassed ? 0 : 1);
