import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawnHtml, toText } from '../../lib/text/html.ts';
import { loginOffer } from '../../web/static/markup/login-offer.js';

/** web/static/next-path.js, the login page's ?weiter= (finding 6 of the abuse review: an open redirect). */
const modulePath: string = '../../web/static/next-path.js';
const { sameOriginPath, withNext } = (await import(modulePath)) as {
  sameOriginPath: (raw: string | null, origin: string) => string;
  withNext: (page: string, next: string) => string;
};
const origin = 'https://board.example';

/** Next paths that lead off the board, or are none: each must end on the feed. */
const offTheBoard = [
  '/\t/evil.example',
  '/\n/evil.example',
  '//evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '/.//evil.example', // resolves on the board, but its path is "//evil.example"
  '/./\\evil.example',
  '/x/..//evil.example',
  '/%2F/evil.example', // "//evil.example" once a server or a browser decodes it
  '/%2f/evil.example',
  '/%5C/evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  'data:text/html,x',
  'http://board.example/',
  'https://board.example:444/',
  'https://board.example//evil.example/x',
  'http://[',
  '',
  null,
];

test('a path of the board is kept, with its query and fragment', () => {
  assert.equal(sameOriginPath('/e/42', origin), '/e/42');
  assert.equal(sameOriginPath('/?seite=2#e7', origin), '/?seite=2#e7');
  assert.equal(sameOriginPath('settings', origin), '/settings');
  assert.equal(sameOriginPath(`${origin}/stats`, origin), '/stats');
  assert.equal(sameOriginPath('/u/a%2Fb', origin), '/u/a%2Fb', 'an escaped slash later in the path is a name');
});

test('anything that leads to another site, or is no URL, goes to the feed', () => {
  for (const raw of offTheBoard) assert.equal(sameOriginPath(raw, origin), '/', JSON.stringify(raw));
});

test('the way to log in and back carries a path of the board, and nothing else', () => {
  assert.equal(withNext('/login', '/e/7#e7'), '/login?weiter=%2Fe%2F7%23e7');
  assert.equal(withNext('/register', '/?seite=2#e3'), '/register?weiter=%2F%3Fseite%3D2%23e3');
  assert.equal(withNext('/login', '/'), '/login', 'back to the feed needs no weiter');
  for (const next of offTheBoard) {
    if (next === null) continue;
    assert.equal(withNext('/login', next), '/login', JSON.stringify(next));
  }
});

test("the server's drawn login offer links with the same rule", () => {
  const offer = (back: string) => toText(drawnHtml(loginOffer('Antworten', back)));
  assert.match(offer('/e/7#e7'), /href="\/login\?weiter=%2Fe%2F7%23e7"/);
  assert.match(offer('/e/7#e7'), /href="\/register\?weiter=%2Fe%2F7%23e7"/);
  const off = offer('/.//evil.example/x');
  assert.match(off, /href="\/login"/);
  assert.match(off, /href="\/register"/);
  assert.doesNotMatch(off, /evil/);
});
