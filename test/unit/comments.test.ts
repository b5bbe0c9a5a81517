import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type Comment,
  commentsOf,
  date,
  issueReference,
  measure,
  measuredFigure,
  type Stats,
  statsOf,
} from '../../.ci/comment-stats.ts';

/**
 * A comment says why in a sentence or two; how a figure was measured, dates and issue numbers go
 * to bench/results.md or the commit (CONTRIBUTING.md "How the code reads").
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
let measured: Stats | undefined;
const libStats = () => (measured ??= measure(root, 'lib'));
const where = (comment: Comment) => `${comment.file}:${comment.line} (${comment.text.length} characters)`;

test('a run of // lines is one comment, and its length counts no markers or indentation', () => {
  const { comments } = commentsOf(
    'x.ts',
    ['const a = 1;', '  // first line', '  // second line', 'const b = 2; // trailing', '// apart'].join('\n'),
  );
  assert.deepEqual(
    comments.map((comment) => comment.text),
    ['first line second line', 'trailing', 'apart'],
  );
});

test('a block comment is one comment; text in strings, templates and regular expressions is none', () => {
  const source = [
    'const s = "// no comment";',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal in the source under test
    'const t = `/* none */ ${s}`;',
    'const r = /\\/\\/ nor this/;',
    '/**',
    ' * One',
    ' * comment.',
    ' */',
    'export const x = r;',
  ].join('\n');
  assert.deepEqual(
    commentsOf('x.ts', source).comments.map((comment) => [comment.line, comment.text]),
    [[4, 'One comment.']],
  );
});

test("a file's first comment before or right after its imports is its header, a later one is not", () => {
  const headed = commentsOf(
    'x.ts',
    "import a from 'a';\n\n/** What this module is. */\nexport const x = a;\n/** Why f. */\nexport function f() {}\n",
  );
  assert.deepEqual(
    headed.comments.map((comment) => comment.header),
    [true, false],
  );
  const late = commentsOf('x.ts', 'export const x = 1;\n/** After code. */\nexport const y = 2;\n');
  assert.deepEqual(
    late.comments.map((comment) => comment.header),
    [false],
  );
});

test('the long comments are counted outside headers only, and the lines of every file', () => {
  const long = 'w'.repeat(301);
  const stats = statsOf([
    commentsOf('a.ts', `/** ${long} */\nexport const a = 1;\n/** ${long} */\nexport const b = 2;\n`),
    commentsOf('b.ts', 'export const c = 3;\n'),
  ]);
  assert.equal(stats.lines, 5);
  assert.equal(stats.comments, 2);
  assert.deepEqual(
    stats.over300.map((comment) => [comment.file, comment.line]),
    [['a.ts', 3]],
  );
  assert.deepEqual(
    stats.headersOver300.map((comment) => comment.line),
    [1],
  );
});

test('issue numbers, dates and measured figures are recognised, a limit or a word is not an issue', () => {
  assert.ok(issueReference.test('took 0.2 s (issue 28)'));
  assert.ok(issueReference.test('see issues #31'));
  assert.ok(!issueReference.test('an issue with the lock'));
  assert.ok(date.test('the run of 2026-11-27'));
  assert.ok(!date.test('JSON Schema 2020-12'));
  assert.ok(measuredFigure.test('from 5 ms to over half a second'));
  assert.ok(measuredFigure.test('0.4 ms per create at 1M entries'));
  assert.ok(!measuredFigure.test('two hashers at the default cost'));
});

test('lib/ holds at most 4 comments per 100 lines', () => {
  const stats = libStats();
  assert.ok(
    stats.perHundredLines <= 4,
    `${stats.comments} comments in ${stats.lines} lines: ${stats.perHundredLines.toFixed(2)} per 100 (drop the ones that repeat the code)`,
  );
});

test('no comment in lib/ outside a module header is longer than 300 characters', () => {
  assert.deepEqual(libStats().over300.map(where), []);
});

test('no comment in lib/ names an issue number: the commit and bench/results.md keep the history', () => {
  assert.deepEqual(libStats().issueReferences.map(where), []);
});
