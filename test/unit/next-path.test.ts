import assert from 'node:assert/strict';
import { test } from 'node:test';

/** web/static/next-path.js, the login page's ?weiter= (finding 6 of the abuse review: an open redirect). */
const modulePath: string = '../../web/static/next-path.js';
const { sameOriginPath } = (await import(modulePath)) as {
  sameOriginPath: (raw: string | null, origin: string) => string;
};
const origin = 'https://board.example';

test('a path of the board is kept, with its query and fragment', () => {
  assert.equal(sameOriginPath('/e/42', origin), '/e/42');
  assert.equal(sameOriginPath('/?seite=2#e7', origin), '/?seite=2#e7');
  assert.equal(sameOriginPath('settings', origin), '/settings');
  assert.equal(sameOriginPath(`${origin}/stats`, origin), '/stats');
});

test('anything that leads to another site, or is no URL, goes to the feed', () => {
  for (const raw of [
    '/\t/evil.example',
    '/\n/evil.example',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'data:text/html,x',
    'http://board.example/',
    'https://board.example:444/',
    'http://[',
    '',
    null,
  ]) {
    assert.equal(sameOriginPath(raw, origin), '/', JSON.stringify(raw));
  }
});
