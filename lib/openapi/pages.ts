import { constant, json, ref, status, type Answer, type Area, type Operation } from './kit.ts';

/** docs/API.md "Statistics", "Health", this document itself, and "Pages and static files" (not JSON). */

export const operations: Area = {
  tag: 'Statistics and operations',
  description: 'Public statistics, the health check and this document.',
  operations: {
    'GET /api/stats': {
      id: 'stats',
      summary: 'Users and live entries',
      ok: json('the counts', ref('Stats')),
    },
    'GET /api/stats/detail': {
      id: 'statsDetail',
      summary: 'Counts, votes, impressions, visitors, the last 30 days and the top networks',
      ok: json('the statistics', ref('StatsDetail')),
    },
    'GET /api/health': {
      id: 'health',
      summary: 'ok after a real database query (for monitoring and load balancers)',
      ok: json('the database answers', status('ok')),
    },
    'GET /api/openapi.json': {
      id: 'openapi',
      summary: 'This document: OpenAPI 3.1 of every route',
      ok: json('the document', {
        type: 'object',
        required: ['openapi', 'info', 'paths'],
        properties: { openapi: constant('3.1.0'), info: { type: 'object' }, paths: { type: 'object' } },
      }),
    },
  },
};

const html = (statusCode: number, description: string): Answer => ({
  status: statusCode,
  description,
  mediaType: 'text/html',
});

/** A front-end view: the one HTML page, always 200; the operator's contact rides in it so every visitor gets the same bytes (README "Settings"). */
const view = (id: string, what: string): Operation => ({
  id,
  summary: `The front end's page: ${what}`,
  ok: html(200, 'the page; <body data-contact="…"> carries BOARD_CONTACT when it is set'),
});

export const pages: Area = {
  tag: 'Pages and files',
  description: 'HTML pages and files, not JSON (only errors such as 405 are JSON).',
  operations: {
    'GET /': {
      id: 'homePage',
      summary: 'The newest threads drawn in HTML, ?seite=N for later pages (counts an impression)',
      ok: html(200, 'the page'),
    },
    'GET /e/:pid': {
      id: 'entryPage',
      summary:
        "An entry's page with its share tags: title, description, Open Graph, Twitter card (counts an impression)",
      ok: html(200, 'the thread drawn in HTML; a gone entry with live replies is marked gone'),
      more: [
        html(404, 'the page with status 404: no such entry'),
        html(410, 'the entry is deleted or removed and nothing live hangs below it'),
      ],
    },
    'GET /u/:username': {
      id: 'userPage',
      summary: "A user's profile page with its share tags (counts an impression)",
      ok: html(200, 'the profile and the entries drawn in HTML, ?seite=N for later pages'),
      more: [html(404, 'the page with status 404: no such user')],
    },
    'GET /reset': view('resetPage', 'password reset (the token follows # in the address)'),
    'GET /login': view('loginPage', 'login'),
    'GET /register': view('registerPage', 'registration'),
    'GET /settings': view('settingsPage', 'the own account'),
    'GET /stats': { id: 'statsPage', summary: 'The statistics drawn in HTML', ok: html(200, 'the page') },
    'GET /mod': view('moderationPage', 'the moderation queue'),
    'GET /modlog': {
      id: 'modlogPage',
      summary: 'The public moderation log drawn in HTML, ?seite=N for later pages',
      ok: html(200, 'the page'),
    },
    'GET /suche': {
      id: 'searchPage',
      summary: 'Search results drawn in HTML (?q=, &user=, &seite=; counts against the search rate limit)',
      ok: html(200, 'the form, or the results'),
      more: [
        html(400, 'the form with why: q too long or too many words'),
        html(404, 'the form with why: no such author'),
        html(429, 'the form with why: too many searches (Retry-After)'),
      ],
    },
    'GET /benachrichtigungen': view('notificationsPage', 'the own notifications'),
    'GET /robots.txt': {
      id: 'robots',
      summary: 'What crawlers may read, and where the sitemap is',
      ok: { status: 200, description: 'the rules', mediaType: 'text/plain' },
    },
    'GET /sitemap.xml': {
      id: 'sitemap',
      summary: 'The live threads by last activity; an index of /sitemap/{n}.xml past 50,000',
      ok: { status: 200, description: 'a urlset or a sitemapindex', mediaType: 'application/xml' },
      more: [{ status: 304, description: 'unchanged since If-None-Match', empty: true }],
    },
    'GET /sitemap/:file': {
      id: 'sitemapFile',
      summary: 'The n-th file of the sitemap index ({n}.xml)',
      ok: { status: 200, description: 'a urlset', mediaType: 'application/xml' },
      more: [
        html(404, 'no such file (or one file holds every thread)'),
        { status: 304, description: 'unchanged', empty: true },
      ],
    },
    'GET /static/media/*': {
      id: 'media',
      summary: 'An uploaded image, avatar or preview thumbnail (the path may hold slashes)',
      ok: {
        status: 200,
        description:
          'the image with its type (JPEG, PNG, GIF or WebP), nosniff and a Content-Security-Policy that allows nothing',
        mediaType: 'image/*',
      },
      more: [
        html(
          404,
          'no such file, a file the board did not write (by its name and first bytes), or an image no live entry owns',
        ),
      ],
    },
    'GET /static/*': {
      id: 'staticFile',
      summary: 'A file of the front end (the path may hold slashes)',
      ok: { status: 200, description: 'the file', mediaType: '*/*' },
      more: [html(404, 'no such file')],
    },
  },
};
