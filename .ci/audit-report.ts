/** What `npm audit --json` reports (the parts .ci/audit.ts reads). */
export interface Advisory {
  source?: number;
  url?: string;
  title?: string;
  severity?: string;
}
export interface Vulnerability {
  name: string;
  severity: string;
  via: (Advisory | string)[];
}
export interface AuditReport {
  vulnerabilities?: Record<string, Vulnerability>;
  statusCode?: number;
  message?: string;
}

/** The advisory ids (GHSA-…) listed under a "Known advisories" heading of the README's text. */
export function knownAdvisories(readme: string): Set<string> {
  const section = /^#+ Known advisories\n([\s\S]*?)(?=^#|(?![\s\S]))/m.exec(readme)?.[1] ?? '';
  return new Set(section.match(/GHSA(-[0-9a-z]{4}){3}/g) ?? []);
}

/**
 * One line per advisory of the report, and the lines that fail the check: high or critical and
 * not known. Why high and critical only: a moderate advisory is printed for a person to weigh,
 * while a build that fails on every low one gets its check switched off.
 */
export function auditLines(report: AuditReport, known: Set<string>): { lines: string[]; blocking: string[] } {
  const lines: string[] = [];
  const blocking: string[] = [];
  for (const vulnerability of Object.values(report.vulnerabilities ?? {})) {
    for (const advisory of vulnerability.via.filter((via): via is Advisory => typeof via === 'object')) {
      const id = advisory.url?.split('/').pop() ?? String(advisory.source);
      const line = `${vulnerability.name}: ${advisory.severity} ${id} ${advisory.title ?? ''}`.trim();
      if ((advisory.severity === 'high' || advisory.severity === 'critical') && !known.has(id)) blocking.push(line);
      lines.push(known.has(id) ? `${line} (known, README "Known advisories")` : line);
    }
  }
  return { lines, blocking };
}
