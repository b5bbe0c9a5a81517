import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { auditLines, knownAdvisories, type AuditReport } from '../../.ci/audit-report.ts';

/** The shape of `npm audit --json` (npm 7 and later): a package, and the advisories that reach it. */
const report: AuditReport = {
  vulnerabilities: {
    undici: {
      name: 'undici',
      severity: 'high',
      via: [
        {
          source: 1,
          url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc',
          title: 'Header injection',
          severity: 'high',
        },
      ],
    },
    tar: {
      name: 'tar',
      severity: 'critical',
      via: [
        {
          source: 2,
          url: 'https://github.com/advisories/GHSA-dddd-eeee-ffff',
          title: 'Path traversal',
          severity: 'critical',
        },
      ],
    },
    'tar-stream': { name: 'tar-stream', severity: 'critical', via: ['tar'] },
    busboy: {
      name: 'busboy',
      severity: 'moderate',
      via: [
        {
          source: 3,
          url: 'https://github.com/advisories/GHSA-gggg-hhhh-jjjj',
          title: 'Slow parse',
          severity: 'moderate',
        },
      ],
    },
  },
};

test('a high or critical advisory that the README does not list fails the check; a moderate one is only printed', () => {
  const { lines, blocking } = auditLines(report, new Set());
  assert.deepEqual(blocking, [
    'undici: high GHSA-aaaa-bbbb-cccc Header injection',
    'tar: critical GHSA-dddd-eeee-ffff Path traversal',
  ]);
  assert.equal(lines.length, 3, 'one line per advisory; a package reached through another is not counted twice');
  assert.ok(lines.includes('busboy: moderate GHSA-gggg-hhhh-jjjj Slow parse'));
});

test('an advisory listed under "Known advisories" passes, and is marked in its line', () => {
  const readme =
    '# The board\n\n### Known advisories\n\n- GHSA-dddd-eeee-ffff (tar): only reads archives the board wrote itself\n\n### Next\n\n- GHSA-aaaa-bbbb-cccc here is not the list\n';
  const known = knownAdvisories(readme);
  assert.deepEqual([...known], ['GHSA-dddd-eeee-ffff']);
  const { lines, blocking } = auditLines(report, known);
  assert.deepEqual(blocking, ['undici: high GHSA-aaaa-bbbb-cccc Header injection']);
  assert.ok(lines.includes('tar: critical GHSA-dddd-eeee-ffff Path traversal (known, README "Known advisories")'));
});

test('the README has the section the check reads, and it lists nothing today', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  assert.match(readme, /^### Known advisories$/m);
  assert.deepEqual([...knownAdvisories(readme)], []);
});
