// "/suche?q=…": the search as the server draws it (markup/search.js), with the cards' actions.
import * as api from '../api.js';
import { refresh } from '../router.js';
import { loadTallies } from '../votes.js';
import { enhanceCards } from '../components/entry.js';
import { searchWords, wordsPattern } from '../components/highlight.js';
import { shownPids } from '../markup/entry.js';
import { pageFromQuery } from '../markup/pager.js';
import { searchMarkup, searchTitle } from '../markup/search.js';

/** @import { DrawnView } from '../router.js' */
/** @import { SearchAsked } from '../markup/search.js' */

/** @type {DrawnView} */
export const searchView = {
  async load({ query }) {
    /** @type {SearchAsked} */
    const asked = { q: query.get('q') ?? '', user: query.get('user') ?? '', page: pageFromQuery(query) };
    const title = searchTitle(asked);
    const nothing = () => {};
    if (!asked.q.trim() && !asked.user) return { title, markup: () => searchMarkup(asked), enhance: nothing };
    const params = new URLSearchParams({ q: asked.q, ...(asked.user ? { user: asked.user } : {}) });
    /** @type {Api.EntryWithLatest[]} */
    let entries;
    try {
      entries = await api.get(`/api/search/${asked.page}?${params}`);
    } catch (err) {
      // A refusal (too long, no such author, too many searches, busy) is the form and why, as the
      // server draws it; no answer at all, or a failure of the server, is the error page.
      if (!(err instanceof api.ApiError) || err.status === 0 || err.status === 500) throw err;
      return { title, markup: () => searchMarkup(asked, { message: err.message }), enhance: nothing };
    }
    const tallies = await loadTallies(shownPids(entries));
    const mark = wordsPattern(searchWords(asked.q));
    return {
      title,
      markup: () => searchMarkup(asked, { entries, tallies, mark }),
      enhance: (view) => enhanceCards(view, entries, { refresh, mark }),
    };
  },
};
