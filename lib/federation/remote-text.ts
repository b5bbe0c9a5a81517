import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';
import { maxContentLength } from '../product.ts';
import { codePoints } from '../text/code-points.ts';

/**
 * The HTML of a remote post (a Mastodon, Lemmy or NodeBB `content`) as the board's text model:
 * plain text with its links as URLs and its mentions as `@name` (a member of this board) or
 * `@name@host`. sanitize-html first keeps only paragraphs, line breaks and http(s) anchors and
 * drops what is no text (scripts, styles, frames, images: a tracking pixel leaves nothing); the
 * sanitized markup is then read by htmlparser2 into text. Nothing of the HTML reaches a page as
 * HTML: the board draws this text as it draws a local entry's.
 */

const droppedWithContent = [
  'script',
  'style',
  'textarea',
  'option',
  'noscript',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'template',
  'title',
  'head',
];

const sanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'a', 'li', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div'],
  allowedAttributes: { a: ['href'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: droppedWithContent,
};

const blocks = new Set(['p', 'li', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div']);

export interface RemoteText {
  text: string;
  cut: boolean;
}

/** An anchor's absolute http(s) target, or undefined (sanitize-html lets relative ones through). */
function absolute(href: string): URL | undefined {
  try {
    const url = new URL(href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A link's text: the URL when the anchor shows it (Mastodon splits it into spans), else "text (URL)". */
function anchorText(shown: string, href: string, boardHost: string): string {
  const text = shown.trim();
  const url = absolute(href);
  if (!url) return text;
  // A mention: `@name` of this board's member, `@name@host` of anyone elsewhere; a hashtag as it is.
  if (/^@[^\s@]+$/.test(text)) return url.host === boardHost ? text : `${text}@${url.host}`;
  if (/^@[^\s@]+@[^\s@]+$/.test(text) || /^#\S+$/.test(text)) return text;
  const bare = (link: string) => link.replace(/^https?:\/\//, '').replace(/…$/, '');
  return !text || bare(url.href).startsWith(bare(text)) ? url.href : `${text} (${url.href})`;
}

function textOf(html: string, boardHost: string): string {
  let out = '';
  let anchor: { href: string; shown: string } | undefined;
  const append = (text: string) => {
    if (anchor) anchor.shown += text;
    else out += text;
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'br') append('\n');
        else if (name === 'a') anchor = { href: attributes.href ?? '', shown: '' };
        else if (blocks.has(name) && out.trim()) out += '\n\n';
      },
      ontext(text) {
        append(text.replace(/[ \t\r\n]+/g, ' '));
      },
      onclosetag(name) {
        if (name === 'a' && anchor) {
          const { href, shown } = anchor;
          anchor = undefined;
          out += anchorText(shown, href, boardHost);
        } else if (blocks.has(name)) out += '\n\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The remote `content` as the board's text, cut past maxContentLength code points with "…" and
 * the link to `original` (the post on its own server), so a reader can read the rest there. A
 * `title` (an Article's or Page's `name`) is its first line: the board's entries have no title.
 */
export function remoteText(html: string, original: string, boardHost: string, title = ''): RemoteText {
  const heading = title.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  const body = textOf(sanitizeHtml(html, sanitizeOptions), boardHost);
  const text = heading && body ? `${heading}\n\n${body}` : heading || body;
  if (codePoints(text) <= maxContentLength) return { text, cut: false };
  const tail = `… ${original}`;
  const room = Math.max(0, maxContentLength - codePoints(tail));
  return { text: `${Array.from(text).slice(0, room).join('').trimEnd()}${tail}`, cut: true };
}
