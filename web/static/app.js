// Start-up: who is logged in, the header, and one view per address.
import { footerContact } from './contact.js';
import { h } from './dom.js';
import { showShortcuts, startShortcuts } from './keys.js';
import { navigate, startRouter } from './router.js';
import { isModerator, onMeChange, refreshMe, watchSessionEnd } from './session.js';
import { announce } from './status.js';
import { pages } from './pages.js';
import { pageTitle } from './titles.js';
import { forgetTallies, loadShownTallies } from './votes.js';
import { avatar } from './markup/avatar.js';
import { showRelativeTimes, watchMuteChanges } from './components/entry.js';
import { logoutButton } from './components/logout-button.js';
import { modLink, refreshModCount } from './components/mod-link.js';
import { notifyLink, resetUnread } from './components/notify-badge.js';
import { loginView, resetView } from './views/auth.js';
import { registerView } from './views/register.js';
import { feedView } from './views/feed.js';
import { modView } from './views/mod.js';
import { modlogView } from './views/modlog.js';
import { notificationsView } from './views/notifications.js';
import { notFoundOf, notFoundView, errorView } from './views/notfound.js';
import { profileView } from './views/profile.js';
import { recoverView } from './views/recover.js';
import { searchView } from './views/search.js';
import { settingsView } from './views/settings.js';
import { statsView } from './views/stats.js';
import { threadView } from './views/thread.js';

/** @import { Child } from './dom.js' */
/** @import { PagePath } from './pages.js' */
/** @import { Drawn, DrawnView, View, ViewContext } from './router.js' */

/**
 * The view of each page the server answers with the page shell (pages.js, written from the route
 * table): a page without a view, or a view without a page, fails `make typecheck`.
 * @type {Record<PagePath, View | DrawnView>}
 */
const views = {
  '/': feedView,
  '/e/:pid': threadView,
  '/u/:username': profileView,
  '/login': loginView,
  '/register': registerView,
  '/reset': resetView,
  '/recover': recoverView,
  '/settings': settingsView,
  '/stats': statsView,
  '/mod': modView,
  '/modlog': modlogView,
  '/suche': searchView,
  '/benachrichtigungen': notificationsView,
};

/**
 * The view of an address and the match of its pattern.
 * @param {string} path
 * @returns {[View | DrawnView, string[]]}
 */
export function findView(path) {
  for (const { path: page, pattern } of pages) {
    const match = pattern.exec(path);
    if (match) return [views[page], match];
  }
  return [notFoundView, []];
}

/**
 * @param {string} href
 * @param {...Child} children
 */
function navLink(href, ...children) {
  return h('a', { href }, ...children);
}

/**
 * Counts this page load as one view (POST /api/impression; the board decides whether the page
 * counts) when the page carries the view beacon (BOARD_IMPRESSION_BEACON=1: a cache in front that
 * never tells the board answers the pages); else the page's GET counted it. Navigating inside the
 * front end counts nothing. A failure is nobody's concern.
 */
function countPageView() {
  if (!document.getElementById('view-beacon')) return;
  const body = new URLSearchParams({ page: location.pathname });
  fetch('/api/impression', { method: 'POST', body, keepalive: true }).catch(() => {});
}

/** @param {Api.OwnUser | null} user */
function drawNav(user) {
  const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
  nav.replaceChildren(
    navLink('/', 'Neueste'),
    navLink('/stats', 'Statistik'),
    ...(isModerator(user) ? [modLink()] : []),
    ...(user ? [notifyLink()] : []),
    ...(user
      ? [
          navLink(
            `/u/${encodeURIComponent(user.username)}`,
            avatar(user.username, user.avatar),
            h('span', { class: 'nav-name' }, user.username),
          ),
          navLink('/settings', 'Einstellungen'),
          logoutButton({ class: 'nav-button' }),
        ]
      : [navLink('/login', 'Anmelden'), navLink('/register', 'Registrieren')]),
  );
  markCurrentLink();
}

function markCurrentLink() {
  for (const a of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll('#nav a'))) {
    if (a.pathname === location.pathname) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

let drawing = 0;

/**
 * A view the server draws too, its data loaded: the view's drawing, or the not-found page (which
 * the server draws too) when the API has not found what the address names. Null for a view that
 * only the browser draws.
 * @param {View | DrawnView} view
 * @param {ViewContext} ctx
 * @returns {Promise<Drawn | null>}
 */
export async function loadDrawn(view, ctx) {
  if (!('load' in view)) return null;
  try {
    return await view.load(ctx);
  } catch (err) {
    const missing = notFoundOf(err);
    if (missing) return missing;
    throw err;
  }
}

/**
 * The built tree as the HTML parser makes it of the same markup: line breaks as "\n" (the parser
 * reads CR LF and CR as LF, and a browser sends a textarea's text with CR LF), adjacent texts as one.
 * @param {HTMLElement} root
 */
function asParsed(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node instanceof Text) node.data = node.data.replace(/\r\n?/g, '\n');
    else if (node instanceof Element)
      for (const attr of node.attributes) attr.value = attr.value.replace(/\r\n?/g, '\n');
  }
  root.normalize();
}

/**
 * The server's drawing of the page when it is what the browser has just drawn from the same data,
 * else the browser's: the page is drawn a second time only where it changed since the server drew it.
 * @param {Element | null} server
 * @param {HTMLElement} fresh
 * @returns {HTMLElement}
 */
function takeOver(server, fresh) {
  if (!(server instanceof HTMLElement)) return fresh;
  asParsed(fresh);
  return server.isEqualNode(fresh) ? server : fresh;
}

/**
 * Draws the view for the current address; a slower earlier drawing never overwrites a newer one.
 * On the first, the server's view stays when it is the same (takeOver). <main> is aria-busy while
 * a page loads (status.js says why): screen readers wait for the new page, not a half-replaced one.
 * @param {{ moveFocus?: boolean, scroll?: boolean }} [options]
 */
async function render({ moveFocus = false, scroll = false } = {}) {
  const id = ++drawing;
  const [view, params] = findView(location.pathname);
  const ctx = { params, query: new URLSearchParams(location.search) };
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  const drawnByServer = id === 1 ? main.querySelector(':scope > .view') : null;
  main.setAttribute('aria-busy', 'true');
  let title;
  /** @type {HTMLElement} */
  let container = h('div', { class: 'view' });
  forgetTallies();
  try {
    const drawn = await loadDrawn(view, ctx);
    if (id !== drawing) return;
    if (drawn) {
      container = takeOver(drawnByServer, drawn.markup());
      drawn.enhance(container);
      title = drawn.title;
    } else title = await /** @type {View} */ (view)(container, ctx);
  } catch (err) {
    if (id !== drawing) return;
    container = h('div', { class: 'view' });
    title = errorView(container, /** @type {Error} */ (err));
  }
  if (id !== drawing) return;
  if (container !== drawnByServer) main.replaceChildren(container);
  showRelativeTimes(container);
  main.removeAttribute('aria-busy');
  document.title = pageTitle(title);
  markCurrentLink();
  if (scroll) window.scrollTo(0, 0);
  const target =
    location.hash.length > 1 && /^#[\w-]+$/.test(location.hash)
      ? document.getElementById(location.hash.slice(1))
      : null;
  target?.scrollIntoView();
  if (moveFocus) {
    // An address with an anchor in the view (an entry, back from the login) puts the focus there.
    const inView = target && container.contains(target) ? target : null;
    const heading = inView ?? main.querySelector('h1');
    if (heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    (heading ?? main).focus({ preventScroll: Boolean(inView) });
  }
  loadShownTallies().catch((err) => announce(err.message, 'error'));
  void refreshModCount(); // new reports arrive while a moderator reads
}

/** The footer's way to the shortcut list (it works when the keys are off) and the operator's contact. */
function drawFooter() {
  const keys = h('button', { type: 'button', class: 'link-button' }, 'Tastenkürzel');
  keys.addEventListener('click', showShortcuts);
  const contact = footerContact();
  document
    .querySelector('.site-footer')
    ?.append(h('p', {}, keys, ' – oder die Taste ', h('kbd', {}, '?')), ...(contact ? [contact] : []));
}

/** The header's search field goes to /suche without a page load. */
function startSearchField() {
  document.getElementById('site-search')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = String(new FormData(/** @type {HTMLFormElement} */ (event.target)).get('q') ?? '');
    if (q.trim()) navigate(`/suche?q=${encodeURIComponent(q)}`);
  });
}

/** Starts the page (main.js calls it): importing this file draws and listens to nothing. */
export async function start() {
  countPageView();
  drawFooter();
  startShortcuts();
  watchSessionEnd();
  watchMuteChanges();
  onMeChange(drawNav);
  onMeChange(resetUnread);
  startSearchField();
  try {
    await refreshMe();
  } catch (err) {
    drawNav(null);
    announce(/** @type {Error} */ (err).message, 'error');
  }
  startRouter(render);
  setInterval(() => showRelativeTimes(document), 30_000); // "vor 5 Minuten" stays right
  await render();
  document.documentElement.dataset.ready = 'true';
}
