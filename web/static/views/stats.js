// "/stats": the statistics as the server draws them (markup/stats.js); the browser adds nothing.
import * as api from '../api.js';
import { statsMarkup } from '../markup/stats.js';

/** @import { DrawnView } from '../router.js' */

/** @type {DrawnView} */
export const statsView = {
  async load() {
    /** @type {Api.StatsDetail | null} */
    let stats = null;
    try {
      stats = await api.get('/api/stats/detail');
    } catch (err) {
      if (!(err instanceof api.ApiError) || err.status !== 404) throw err;
    }
    return { title: 'Statistik', markup: () => statsMarkup(stats), enhance: () => {} };
  },
};
