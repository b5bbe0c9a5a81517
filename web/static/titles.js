// The page titles (document.title), and the server's for its drawn pages and share tags
// (lib/pages/share.ts): link previews in chats show them, and the tab reads the same before and
// after the front end starts: "<start of the text> – <author> – Das Board" and "<name> – Das Board".

/** The board's name, the last part of every title. */
export const boardName = 'Das Board';

/** How much of an entry's text the title shows, in code points. */
const titleTextLength = 60;

/**
 * The text's start: whitespace collapsed, at most 60 code points, cut at a word where one is near.
 * @param {string} content
 */
function textStart(content) {
  const chars = [...content.replace(/\s+/g, ' ').trim()];
  if (chars.length <= titleTextLength) return chars.join('');
  const cut = chars.slice(0, titleTextLength).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > titleTextLength / 2 ? cut.slice(0, space) : cut} …`;
}

/**
 * "Hallo Welt – Anna" for an entry; a deleted or removed one says only that (it reveals nothing).
 * @param {{ content: string, username: string, deleted?: number, removed?: number }} entry
 */
export function entryTitle(entry) {
  if (entry.deleted) return entry.removed ? 'Entfernter Beitrag' : 'Gelöschter Beitrag';
  return `${textStart(entry.content) || 'Bild'} – ${entry.username || 'gelöschtes Konto'}`;
}

/**
 * The whole title of a view: "Statistik – Das Board"; a view without one is just the board's name.
 * @param {string | undefined} title
 */
export function pageTitle(title) {
  return title ? `${title} – ${boardName}` : boardName;
}
