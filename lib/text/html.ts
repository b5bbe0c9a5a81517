import escapeHtml from 'escape-html';

/**
 * The server's one way to write HTML (docs/API.md "Pages without JavaScript"): the `html` tagged
 * template escapes every value unless it is markup made by `html`. Why one way: text from users can
 * never become markup in the front end (it has no innerHTML), and a missed escape here would be
 * stored script on a public page. Nothing else in lib/ builds HTML by hand.
 */

const markup = Symbol('markup');

/** Markup that is safe to send: only `html` (and `trustedFile` for the shell) make one. */
export interface Html {
  readonly [markup]: string;
}

export type Child = Html | string | number | null | undefined | false | readonly Child[];

function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && markup in value;
}

function write(value: Child): string {
  if (value === null || value === undefined || value === false) return '';
  if (isHtml(value)) return value[markup];
  if (Array.isArray(value)) return value.map(write).join('');
  // escape-html escapes & < > " ' so a value is safe as text and inside a quoted attribute.
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Child[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += write(values[i]!) + strings[i + 1]!;
  return { [markup]: out };
}

/** A file of the board's own (web/index.html): markup the operator deployed, not text from users. */
export function trustedFile(text: string): Html {
  return { [markup]: text };
}

export function toText(page: Html): string {
  return page[markup];
}

/**
 * The shell with parts put in: each key, a literal of the trusted file (a `<!-- name -->` marker,
 * a tag), replaced once by markup. A literal the file lacks is an error of the deploy, so it throws.
 */
export function fill(shell: Html, parts: Readonly<Record<string, Html>>): Html {
  let out = shell[markup];
  for (const [literal, part] of Object.entries(parts)) {
    const at = out.indexOf(literal);
    if (at < 0) throw new Error(`web/index.html has no ${literal}`);
    out = out.slice(0, at) + part[markup] + out.slice(at + literal.length);
  }
  return { [markup]: out };
}
