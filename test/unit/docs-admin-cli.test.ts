import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { commandList } from '../../bin/cli.ts';
import { commands } from '../../bin/commands/index.ts';

/**
 * docs/OPERATIONS.md "Admin CLI" lists the commands as `board-admin help` does, both from the
 * command table (bin/commands/index.ts): a command added, renamed or reworded there and not in the
 * guide fails here, and the message shows the rows to paste.
 */
const operations = readFileSync(new URL('../../docs/OPERATIONS.md', import.meta.url), 'utf8');

/** The rows of the first table under a heading, without its header and separator. */
function tableUnder(markdown: string, heading: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start + 2, end < 0 ? undefined : end);
}

/** One Markdown row: a pipe inside a cell is escaped, an angle bracket in the summary too (it would read as HTML). */
function row(call: string, summary: string): string {
  return `| \`${call.replaceAll('|', '\\|')}\` | ${summary.replaceAll('|', '\\|').replaceAll('<', '&lt;')} |`;
}

test('the Admin CLI table of docs/OPERATIONS.md is the command table: every command, its arguments and summary, in order', () => {
  const expected = commandList(commands).map((c) => row(c.call, c.summary));
  assert.deepEqual(tableUnder(operations, 'Admin CLI'), expected, `the table to paste:\n${expected.join('\n')}`);
});
