import { stripBidiControls } from '../text/bidi.ts';
import type { EntryJson } from '../entries/reads.ts';
import { html, type Html } from '../text/html.ts';
import { boardName, entryTitle, pageTitle } from '../../web/static/titles.js';

/**
 * The head tags that make /e/{pid} and /u/{username} preview well when their link is pasted
 * into a chat or another board (docs/API.md "Pages that share well"): <title>, description, Open
 * Graph and Twitter card tags, the canonical address, and the page's Atom feed as
 * <link rel="alternate">. The page (lib/pages/layout.ts) puts them where the shell's <title> goes.
 */

/** A description as long as previews show: about two lines in a chat. */
const descriptionLength = 200;

function oneLine(text: string): string {
  return stripBidiControls(text).replace(/[\u0000-\u001F\u007F]/g, ' ');
}

function excerpt(text: string, max: number): string {
  const chars = [...stripBidiControls(text).replace(/\s+/g, ' ').trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/**
 * A live entry's page title: "Hallo Welt – Anna – Das Board"; "Bild – Anna – Das Board" without
 * text. Made of the front end's titles (web/static/titles.js sets document.title with them), so a
 * chat's link preview, the tab before the front end starts and the tab after it read alike.
 */
export function entryPageTitle(entry: { content: string; username: string }): string {
  return pageTitle(entryTitle(entry));
}

export function userPageTitle(username: string): string {
  return `${username} – ${boardName}`;
}

interface Share {
  title: string;
  description: string;
  url: string;
  image?: string;
  feed: string;
  type: 'article' | 'profile';
}

function headTags(share: Share): Html {
  const meta = (attr: 'name' | 'property', key: string, value: string) =>
    html`<meta ${attr}="${key}" content="${oneLine(value)}">`;
  const title = oneLine(share.title);
  return html`<title>${title}</title>
  ${[
    meta('name', 'description', share.description),
    html`<link rel="canonical" href="${share.url}">`,
    html`<link rel="alternate" type="application/atom+xml" title="${title}" href="${share.feed}">`,
    meta('property', 'og:site_name', boardName),
    meta('property', 'og:type', share.type),
    meta('property', 'og:title', share.title),
    meta('property', 'og:description', share.description),
    meta('property', 'og:url', share.url),
    share.image ? meta('property', 'og:image', share.image) : null,
    meta('name', 'twitter:card', share.image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', share.title),
    meta('name', 'twitter:description', share.description),
    share.image ? meta('name', 'twitter:image', share.image) : null,
  ].map(
    (tag) =>
      tag &&
      html`${tag}
  `,
  )}`;
}

export function entryShareHead(origin: string, entry: EntryJson): Html {
  const author = entry.username || 'gelöschtes Konto';
  const text = excerpt(entry.content, descriptionLength);
  return headTags({
    title: entryPageTitle(entry),
    description: text ? `${author}: ${text}` : `Ein Bild von ${author} auf Das Board.`,
    url: `${origin}/e/${entry.pid}`,
    image: entry.filepath ? `${origin}/static/media/${entry.filepath}` : undefined,
    feed: `${origin}/e/${entry.pid}/feed.atom`,
    type: 'article',
  });
}

export function userShareHead(origin: string, user: { username: string; avatar: string }, page: string): Html {
  return headTags({
    title: userPageTitle(user.username),
    description: `Die Beiträge von ${user.username} auf Das Board, einer öffentlichen Diskussionsseite.`,
    url: page,
    image: user.avatar ? `${origin}/static/media/${user.avatar}` : undefined,
    feed: `${page}/feed.atom`,
    type: 'profile',
  });
}
