import type { StatsDetail } from '../../stats/stats.ts';
import { statsWindowDays } from '../../product.ts';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { dailyChart } from './chart.ts';
import { germanNumber } from '../../text/german.ts';
import { view } from './lists.ts';

function facts(stats: StatsDetail): Html {
  const items: [string, number][] = [
    ['Mitglieder', stats.users],
    ['Beiträge', stats.entries],
    ['Themen', stats.toplevel],
    ['Antworten', stats.replies],
    ['Ja-Stimmen', stats.votes.yes],
    ['Nein-Stimmen', stats.votes.no],
    ['Seitenaufrufe', stats.impressions_total],
    ['Besucher', stats.visitors_total],
  ];
  return html`<dl class="stat-grid">${items.map(
    ([label, value]) => html`<div class="stat"><dt>${label}</dt><dd>${germanNumber(value)}</dd></div>`,
  )}</dl>`;
}

function asnTable(topAsns: StatsDetail['top_asns']): Html {
  if (topAsns.length === 0) return html`<p class="empty">Noch keine Daten.</p>`;
  return html`<table class="asn-table"><thead><tr><th scope="col">Netz</th><th scope="col">Betreiber</th><th scope="col" class="num">Besucher</th></tr></thead><tbody>${topAsns.map(
    (a) =>
      html`<tr><td>${a.asn ? `AS${a.asn}` : '–'}</td><td>${a.asn ? a.name : 'unbekannt'}</td><td class="num">${germanNumber(a.visitors)}</td></tr>`,
  )}</tbody></table>`;
}

/** "/stats": the board in numbers, the last 30 days as the chart, the visitors' networks (web/static/views/stats.js). */
export function statsPage(origin: string, stats: StatsDetail): PageView {
  return {
    status: 200,
    title: 'Statistik',
    canonical: `${origin}/stats`,
    main: view(
      html`<h1>Statistik</h1>`,
      facts(stats),
      html`<section class="card" aria-labelledby="daily-heading"><h2 id="daily-heading">Die letzten ${statsWindowDays} Tage</h2>${dailyChart(stats.daily)}</section>`,
      html`<section class="card" aria-labelledby="asn-heading"><h2 id="asn-heading">Woher die Besucher kommen</h2><p class="muted">Die Netze (Autonome Systeme) mit den meisten Besuchern der letzten ${statsWindowDays} Tage. IP-Adressen werden dabei nicht gespeichert.</p>${asnTable(stats.top_asns)}<p class="muted small">ASN-Daten: <a href="https://db-ip.com" rel="noopener">IP Geolocation by DB-IP</a>, <a href="https://www.routeviews.org/" rel="noopener">RouteViews</a> und <a href="https://www.nro.net/" rel="noopener">NRO</a>, zusammengestellt von <a href="https://github.com/sapics/ip-location-db" rel="noopener">ip-location-db</a>, Lizenz <a href="https://creativecommons.org/licenses/by/4.0/" rel="noopener">CC BY 4.0</a>.</p></section>`,
    ),
  };
}
