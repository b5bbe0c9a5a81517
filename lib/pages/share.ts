import { stripBidiControls } from '../entries/bidi.ts';
import type { Db } from '../db/db.ts';
import { readEntriesByPid } from '../entries/reads.ts';
import { etagOf } from '../http/conditional.ts';
import type { CachedDocument } from '../http/response-cache.ts';
import { findUserByName } from '../accounts/users.ts';

/**
 * The head tags that make /e/{pid} and /u/{username} preview well when their link is pasted
 * into a chat or another board (docs/API.md "Pages that share well"): <title>, description, Open
 * Graph and Twitter card tags, and the page's Atom feed as <link rel="alternate">. They replace
 * the shell's <title> and its marker; the rest of the page stays the same shell.
 */

/** Where the shell takes the tags (web/index.html). */
export const shareMarker = '<!-- share -->';
const shellTitle = '<title>Das Board</title>';
/** A description as long as previews show: about two lines in a chat. */
const descriptionLength = 200;

/** Text for an attribute value or element text: markup and quotes escaped, bidi and other controls gone. */
export function htmlAttribute(text: string): string {
  return stripBidiControls(text)
    .replace(/[\u0000-\u001F\u007F]/g, ' ') // C0 controls (newlines too): a tag's value is one line
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The text's start on one line, at most `max` code points, with an ellipsis when cut. */
function excerpt(text: string, max: number): string {
  const chars = [...stripBidiControls(text).replace(/\s+/g, ' ').trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/**
 * The page titles, the same as the front end's (web/static/titles.js sets document.title with
 * them): "<start of the text> – <author> – Das Board" and "<name> – Das Board". Why the same: a
 * chat's link preview, the tab before the front end starts and the tab after it read alike.
 * test/unit/page-titles.test.ts holds both to the same output.
 */
const boardName = 'Das Board';
/** How much of an entry's text the title shows, in code points. */
const titleTextLength = 60;

/** The text's start: whitespace collapsed, at most 60 code points, cut at a word where one is near. */
function titleTextStart(content: string): string {
  const chars = [...content.replace(/\s+/g, ' ').trim()];
  if (chars.length <= titleTextLength) return chars.join('');
  const cut = chars.slice(0, titleTextLength).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > titleTextLength / 2 ? cut.slice(0, space) : cut} …`;
}

/** A live entry's page title: "Hallo Welt – Anna – Das Board"; "Bild – Anna – Das Board" without text. */
export function entryPageTitle(entry: { content: string; username: string }): string {
  return `${titleTextStart(entry.content) || 'Bild'} – ${entry.username || 'gelöschtes Konto'} – ${boardName}`;
}

/** A profile's page title: "Anna – Das Board". */
export function userPageTitle(username: string): string {
  return `${username} – ${boardName}`;
}

interface Share {
  title: string;
  description: string;
  /** Absolute URLs. */
  url: string;
  image?: string;
  feed: string;
  type: 'article' | 'profile';
}

function headTags(share: Share): string {
  const meta = (attr: 'name' | 'property', key: string, value: string) =>
    `<meta ${attr}="${key}" content="${htmlAttribute(value)}">`;
  return [
    `<title>${htmlAttribute(share.title)}</title>`,
    meta('name', 'description', share.description),
    `<link rel="canonical" href="${htmlAttribute(share.url)}">`,
    `<link rel="alternate" type="application/atom+xml" title="${htmlAttribute(share.title)}" href="${htmlAttribute(share.feed)}">`,
    meta('property', 'og:site_name', 'Das Board'),
    meta('property', 'og:type', share.type),
    meta('property', 'og:title', share.title),
    meta('property', 'og:description', share.description),
    meta('property', 'og:url', share.url),
    ...(share.image ? [meta('property', 'og:image', share.image)] : []),
    meta('name', 'twitter:card', share.image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', share.title),
    meta('name', 'twitter:description', share.description),
    ...(share.image ? [meta('name', 'twitter:image', share.image)] : []),
  ].join('\n  ');
}

function documentOf(shell: Buffer, share: Share): CachedDocument {
  const html = shell.toString('utf8').replace(`${shellTitle}\n  ${shareMarker}`, headTags(share));
  const body = Buffer.from(html);
  return { body, etag: etagOf(body), updated: 0 };
}

/** /e/{pid}'s page with the entry's tags; undefined for an unknown, deleted or removed entry (which reveal nothing). */
export function entryShare(db: Db, origin: string, shell: Buffer, pid: number): CachedDocument | undefined {
  const entry = readEntriesByPid(db, [pid]).get(pid);
  if (!entry || entry.deleted) return undefined;
  const author = entry.username || 'gelöschtes Konto';
  const text = excerpt(entry.content, descriptionLength);
  return documentOf(shell, {
    title: entryPageTitle(entry),
    description: text ? `${author}: ${text}` : `Ein Bild von ${author} auf Das Board.`,
    url: `${origin}/e/${pid}`,
    image: entry.filepath ? `${origin}/static/media/${entry.filepath}` : undefined,
    feed: `${origin}/e/${pid}/feed.atom`,
    type: 'article',
  });
}

/** /u/{username}'s page with the profile's tags; undefined for an unknown user. */
export function userShare(db: Db, origin: string, shell: Buffer, username: string): CachedDocument | undefined {
  const user = findUserByName(db, username);
  if (!user) return undefined;
  const page = `${origin}/u/${encodeURIComponent(user.username)}`;
  return documentOf(shell, {
    title: userPageTitle(user.username),
    description: `Die Beiträge von ${user.username} auf Das Board, einer öffentlichen Diskussionsseite.`,
    url: page,
    image: user.avatar ? `${origin}/static/media/${user.avatar}` : undefined,
    feed: `${page}/feed.atom`,
    type: 'profile',
  });
}
