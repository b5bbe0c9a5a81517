import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * `make audit`: npm audit of the runtime dependencies (--omit=dev), failing on a high or critical
 * advisory unless README's "Known advisories" lists its id (one with no fixed version, with the
 * reason it cannot hurt the board). Lower severities are printed, not failed on. A registry that
 * does not answer audits (a mirror that only serves packages) is said in one line: nothing checked.
 */
interface Advisory { source?: number; url?: string; title?: string; severity?: string }
interface Vulnerability { name: string; severity: string; via: (Advisory | string)[]; fixAvailable: unknown }
interface AuditReport { vulnerabilities?: Record<string, Vulnerability>; statusCode?: number; message?: string }

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

/** The advisory ids (GHSA-…) listed under README's "Known advisories" heading. */
function knownAdvisories(): Set<string> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = /^#+ Known advisories\n([\s\S]*?)(?=^#)/m.exec(readme)?.[1] ?? '';
  return new Set(section.match(/GHSA(-[0-9a-z]{4}){3}/g) ?? []);
}

const known = knownAdvisories();
const blocking: string[] = [];
for (const vulnerability of Object.values(report.vulnerabilities)) {
  const advisories = vulnerability.via.filter((via): via is Advisory => typeof via === 'object');
  for (const advisory of advisories) {
    const id = advisory.url?.split('/').pop() ?? String(advisory.source);
    const line = `${vulnerability.name}: ${advisory.severity} ${id} ${advisory.title ?? ''}`;
    const serious = advisory.severity === 'high' || advisory.severity === 'critical';
    if (serious && !known.has(id)) blocking.push(line);
    console.log(`audit: ${line}${known.has(id) ? ' (known, README "Known advisories")' : ''}`);
  }
}
if (blocking.length) {
  console.error(`audit: ${blocking.length} high or critical advisories in the runtime dependencies: update them (npm update) or, when no fix exists, list the id with the reason in README "Known advisories"`);
  process.exit(1);
}
console.log(`audit: no high or critical advisory in the runtime dependencies (${Object.keys(report.vulnerabilities).length} packages with lower ones)`);
