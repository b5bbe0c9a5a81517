import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { frontEndPages, frontEndPagesFile, shellRoutes } from '../../lib/pages/front-end-pages.ts';
import { routes } from '../../lib/routes.ts';

/** Issue 30: the front end's page list (web/static/pages.js) comes from the route table's page rows. */

test("the front end's page list (web/static/pages.js) is the route table's page rows as they are now", () => {
  assert.equal(
    readFileSync(frontEndPagesFile, 'utf8'),
    frontEndPages(routes),
    'web/static/pages.js is out of date: run `make front-end-files`',
  );
});

test('the front end draws a view exactly for the addresses the server answers with the page shell', async () => {
  const module = new URL('../../web/static/pages.js', import.meta.url).href;
  const { pages } = (await import(module)) as { pages: { path: string; pattern: RegExp }[] };
  assert.deepEqual(
    pages.map((page) => page.path),
    shellRoutes(routes).map((route) => route.path),
  );
  const drawn = (address: string) => pages.filter((page) => page.pattern.test(address)).map((page) => page.path);
  assert.deepEqual(drawn('/'), ['/']);
  assert.deepEqual(drawn('/e/42'), ['/e/:pid']);
  assert.deepEqual(drawn('/e/1234567890123456'), [], 'an entry id over 15 digits is the 404 page');
  assert.deepEqual(drawn('/e/abc'), []);
  assert.deepEqual(drawn('/u/Anna%20B'), ['/u/:username']);
  assert.deepEqual(drawn('/u/a/b'), []);
  assert.deepEqual(drawn('/benachrichtigungen'), ['/benachrichtigungen']);
  assert.deepEqual(drawn('/feed.atom'), [], 'not a page of the shell');
  assert.deepEqual(drawn('/static/app.js'), []);
});
