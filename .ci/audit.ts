import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { auditLines, knownAdvisories, type AuditReport } from './audit-report.ts';

/**
 * `make audit`: npm audit of the runtime dependencies (--omit=dev), failing on a high or critical
 * advisory unless README's "Known advisories" lists its id (one with no fixed release, with the
 * reason it cannot hurt the board); lower severities are printed. A registry that answers no
 * audits (a mirror that only serves packages) is said in one line: nothing was checked.
 */
const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
let report: AuditReport;
try {
  report = JSON.parse(run.stdout) as AuditReport;
} catch {
  console.error(`audit: npm audit printed no report (exit ${run.status}):\n${run.stderr}`);
  process.exit(1);
}
if (!report.vulnerabilities) {
  console.log(`audit: NOT CHECKED: the registry answered no audit (${report.message ?? `exit ${run.status}`})`);
  process.exit(0);
}
const { lines, blocking } = auditLines(
  report,
  knownAdvisories(readFileSync(new URL('../README.md', import.meta.url), 'utf8')),
);
for (const line of lines) console.log(`audit: ${line}`);
if (blocking.length) {
  console.error(
    `audit: ${blocking.length} high or critical advisories in the runtime dependencies: update them (npm update), or when no fix exists list the id with the reason in README "Known advisories"`,
  );
  process.exit(1);
}
console.log(`audit: no high or critical advisory in the runtime dependencies (${lines.length} lower ones)`);
