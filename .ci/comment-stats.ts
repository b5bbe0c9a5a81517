import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * How much of lib/ is words: comments per 100 lines (all lines counted), the long ones, and what
 * belongs in bench/results.md or a commit instead ("issue N", dates, measured figures). A comment
 * is one block: a block comment, or a run of `//` lines on consecutive lines; its length is its
 * text without the markers and the indentation. A module's header is a file's first comment when
 * it comes before the first statement that is not an import; it may be longer. The figures are a
 * pattern's guess (a limit's "64 KiB" is no measurement), listed for a reader, never enforced.
 * test/unit/comments.test.ts holds the limits; `node --import tsx .ci/comment-stats.ts [folder]
 * [skipped folder...]` prints the figures, with COMMENT_STATS_LIST=1 every comment they count.
 */
export interface Comment {
  file: string;
  line: number;
  /** Where the block starts and ends in the source. */
  start: number;
  end: number;
  text: string;
  header: boolean;
}

export interface FileComments {
  file: string;
  lines: number;
  comments: Comment[];
}

/** The comments of one TypeScript source, found by the compiler's parser (never inside a string or regex). */
export function commentsOf(file: string, source: string): FileComments {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const ranges = new Map<number, ts.CommentRange>();
  // Every comment lies in the trivia before a node or list, or after one (before a closing token).
  const at = (pos: number) => {
    for (const range of ts.getLeadingCommentRanges(source, pos) ?? []) ranges.set(range.pos, range);
    for (const range of ts.getTrailingCommentRanges(source, pos) ?? []) ranges.set(range.pos, range);
  };
  const visit = (node: ts.Node): void => {
    at(node.pos);
    at(node.end);
    ts.forEachChild(node, visit, (nodes) => {
      at(nodes.pos);
      at(nodes.end);
      for (const child of nodes) visit(child);
    });
  };
  visit(tree);
  const lineOf = (pos: number) => tree.getLineAndCharacterOfPosition(pos).line;
  const alone = (range: ts.CommentRange) =>
    source.slice(source.lastIndexOf('\n', range.pos - 1) + 1, range.pos).trim() === '';
  const blocks: ts.CommentRange[][] = [];
  for (const range of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const run = blocks.at(-1);
    const last = run?.at(-1);
    const continues =
      last !== undefined &&
      last.kind === ts.SyntaxKind.SingleLineCommentTrivia &&
      range.kind === ts.SyntaxKind.SingleLineCommentTrivia &&
      alone(last) &&
      alone(range) &&
      lineOf(range.pos) === lineOf(last.pos) + 1;
    if (continues) run!.push(range);
    else blocks.push([range]);
  }
  const firstCode = tree.statements.find((statement) => !ts.isImportDeclaration(statement));
  const headerEnd = firstCode ? firstCode.getStart(tree) : source.length;
  const comments = blocks.map((block, index) => ({
    file,
    line: lineOf(block[0]!.pos) + 1,
    start: block[0]!.pos,
    end: block.at(-1)!.end,
    text: block.map((range) => textOf(source.slice(range.pos, range.end))).join(' '),
    header: index === 0 && block[0]!.pos < headerEnd,
  }));
  return { file, lines: source.split('\n').length - (source.endsWith('\n') ? 1 : 0), comments };
}

/** A comment's words: its lines without the markers and the indentation, joined by one space. */
export function textOf(comment: string): string {
  const body = comment.startsWith('//') ? comment.slice(2) : comment.replace(/^\/\*\*?/, '').replace(/\*\/$/, '');
  return body
    .split('\n')
    .map((line) => line.trim().replace(/^\*(?!\/)\s?/, ''))
    .filter((line) => line !== '')
    .join(' ')
    .trim();
}

/** Words of a comment that belong in bench/results.md or a commit, not in the code. */
export const issueReference = /\bissues?\s*#?\d+/i;
/** A year and month (`2026-11`); a JSON Schema dialect's name (`2020-12`) is none. */
export const date = /(?<!Schema )\b20\d\d-(?:0[1-9]|1[0-2])\b/;
export const measuredFigure =
  /\b\d[\d,.]*\s?(?:ms|µs|us|ns|MB|MiB|GB|GiB|kB|KB|KiB|req\/s|requests\/s|%)(?![\w/])|\b(?:at|of|with|to)\s+\d+(?:[.,]\d+)?\s?[kMG]\s+(?:entries|rows|accounts|users)\b|\b\d+(?:\.\d+)?\s?×/;

export interface Stats {
  files: number;
  lines: number;
  comments: number;
  perHundredLines: number;
  over300: Comment[];
  over600: Comment[];
  headersOver300: Comment[];
  issueReferences: Comment[];
  dates: Comment[];
  figures: Comment[];
}

/** The source files (.ts, .mjs, .js) under a folder, as paths relative to `root`, skipping the folders in `except`. */
export function sourceFiles(root: string, folder: string, except: string[] = []): string[] {
  return (readdirSync(join(root, folder), { recursive: true }) as string[])
    .map((name) => join(folder, name))
    .filter((path) => /\.(?:ts|mjs|js)$/.test(path) && !except.some((skip) => path.startsWith(skip)))
    .sort();
}

export function statsOf(files: FileComments[]): Stats {
  const all = files.flatMap((file) => file.comments);
  const body = all.filter((comment) => !comment.header);
  const lines = files.reduce((sum, file) => sum + file.lines, 0);
  return {
    files: files.length,
    lines,
    comments: all.length,
    perHundredLines: (all.length * 100) / lines,
    over300: body.filter((comment) => comment.text.length > 300),
    over600: body.filter((comment) => comment.text.length > 600),
    headersOver300: all.filter((comment) => comment.header && comment.text.length > 300),
    issueReferences: all.filter((comment) => issueReference.test(comment.text)),
    dates: all.filter((comment) => date.test(comment.text)),
    figures: all.filter((comment) => measuredFigure.test(comment.text)),
  };
}

/** The stats of the source files of `folder` under the repository `root`, without the folders in `except`. */
export function measure(root: string, folder = 'lib', except: string[] = []): Stats {
  return statsOf(
    sourceFiles(root, folder, except).map((path) => commentsOf(path, readFileSync(join(root, path), 'utf8'))),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const folder = relative(root, process.argv[2] ?? join(root, 'lib')) || 'lib';
  const stats = measure(root, folder, process.argv.slice(3));
  const where = (comment: Comment) =>
    `  ${comment.file}:${comment.line} (${comment.text.length}) ${comment.text.slice(0, 100)}`;
  console.log(
    `${folder}: ${stats.files} files, ${stats.lines} lines, ${stats.comments} comments, ${stats.perHundredLines.toFixed(2)} per 100 lines`,
  );
  const lists: [string, Comment[]][] = [
    ['over 300 characters outside a header', stats.over300],
    ['over 600 characters outside a header', stats.over600],
    ['headers over 300 characters', stats.headersOver300],
    ['"issue N"', stats.issueReferences],
    ['dates', stats.dates],
    ['measured figures', stats.figures],
  ];
  for (const [name, list] of lists) console.log(`${name}: ${list.length}`);
  if (process.env.COMMENT_STATS_LIST) {
    for (const [name, list] of lists) {
      console.log(`\n${name}:`);
      for (const comment of list) console.log(where(comment));
    }
  }
}
