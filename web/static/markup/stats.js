// "/stats": the board in numbers, a chart of the last statsWindowDays days and the visitors' networks.
import { h } from '../dom.js';
import { number } from '../format.js';
import { statsWindowDays } from '../limits.js';
import { dailyChart } from './chart.js';

/** @param {Api.StatsDetail} stats */
function facts(stats) {
  /** @type {[string, number][]} */
  const items = [
    ['Mitglieder', stats.users],
    ['Beiträge', stats.entries],
    ['Themen', stats.toplevel],
    ['Antworten', stats.replies],
    ['Ja-Stimmen', stats.votes.yes],
    ['Nein-Stimmen', stats.votes.no],
    ['Seitenaufrufe', stats.impressions_total],
    ['Besucher', stats.visitors_total],
  ];
  return h(
    'dl',
    { class: 'stat-grid' },
    items.map(([label, value]) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, number(value)))),
  );
}

/** @param {Api.StatsDetail['top_asns']} topAsns */
function asnTable(topAsns) {
  if (topAsns.length === 0) return h('p', { class: 'empty' }, 'Noch keine Daten.');
  return h(
    'table',
    { class: 'asn-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Netz'),
        h('th', { scope: 'col' }, 'Betreiber'),
        h('th', { scope: 'col', class: 'num' }, 'Besucher'),
      ),
    ),
    h(
      'tbody',
      {},
      topAsns.map((a) =>
        h(
          'tr',
          {},
          h('td', {}, a.asn ? `AS${a.asn}` : '–'),
          h('td', {}, a.asn ? a.name : 'unbekannt'),
          h('td', { class: 'num' }, number(a.visitors)),
        ),
      ),
    ),
  );
}

/**
 * The statistics; null while the board has none to give (its API answers 404).
 * @param {Api.StatsDetail | null} stats
 */
export function statsMarkup(stats) {
  return h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Statistik'),
    stats
      ? [
          facts(stats),
          h(
            'section',
            { class: 'card', 'aria-labelledby': 'daily-heading' },
            h('h2', { id: 'daily-heading' }, `Die letzten ${statsWindowDays} Tage`),
            dailyChart(stats.daily),
          ),
          h(
            'section',
            { class: 'card', 'aria-labelledby': 'asn-heading' },
            h('h2', { id: 'asn-heading' }, 'Woher die Besucher kommen'),
            h(
              'p',
              { class: 'muted' },
              `Die Netze (Autonome Systeme) mit den meisten Besuchern der letzten ${statsWindowDays} Tage. IP-Adressen werden dabei nicht gespeichert.`,
            ),
            asnTable(stats.top_asns),
            // CC BY 4.0 asks for attribution of every source of the data set, with links.
            h(
              'p',
              { class: 'muted small' },
              'ASN-Daten: ',
              h('a', { href: 'https://db-ip.com', rel: 'noopener' }, 'IP Geolocation by DB-IP'),
              ', ',
              h('a', { href: 'https://www.routeviews.org/', rel: 'noopener' }, 'RouteViews'),
              ' und ',
              h('a', { href: 'https://www.nro.net/', rel: 'noopener' }, 'NRO'),
              ', zusammengestellt von ',
              h('a', { href: 'https://github.com/sapics/ip-location-db', rel: 'noopener' }, 'ip-location-db'),
              ', Lizenz ',
              h('a', { href: 'https://creativecommons.org/licenses/by/4.0/', rel: 'noopener' }, 'CC BY 4.0'),
              '.',
            ),
          ),
        ]
      : h('p', { class: 'note' }, 'Die Statistik ist noch nicht verfügbar.'),
  );
}
